//! The skills each user sees, as the front ends show them.

use smallebot_protocol::api::{SkillDetail, SkillList};

/// The skills each user sees: the shared ones and their own (the agent reads them
/// from the home's skills folders).
pub trait UserSkills: Send + Sync {
    /// Every skill folder `user` sees, with its problems. Reads files: call it off the
    /// async threads.
    fn list(&self, user: &str) -> SkillList;

    /// The skill `name` as `user` sees it; `None` when there is none (or it does not
    /// load). Reads files, like [`UserSkills::list`].
    fn show(&self, user: &str, name: &str) -> Option<SkillDetail>;
}
