//! The ports the web app asks for users: whose token a request carries, and each user's
//! own conversation service. The host implements them on its store and its assembly.

use std::sync::Arc;

use async_trait::async_trait;
use smallebot_application::ConversationService;
use smallebot_core::RepositoryError;
use smallebot_protocol::api::{SkillDetail, SkillList};

/// Finds the user a token digest belongs to (the host implements it on its store).
#[async_trait]
pub trait TokenUsers: Send + Sync {
    /// The user whose token has `digest` ([`token_digest`](crate::auth::token_digest)), if any.
    async fn user_for_digest(&self, digest: &str) -> Result<Option<String>, RepositoryError>;
}

/// Each user's own conversation service (their tools work in their own workspace).
#[async_trait]
pub trait UserServices: Send + Sync {
    /// The service `user`'s requests go to (made on first use).
    ///
    /// # Errors
    /// What kept the service from being built, in words.
    async fn service_for(&self, user: &str) -> Result<Arc<ConversationService>, String>;
}

/// The skills each user sees: the shared ones and their own (the host reads them from
/// its skills folders).
pub trait UserSkills: Send + Sync {
    /// Every skill folder `user` sees, with its problems. Reads files: call it off the
    /// async threads.
    fn list(&self, user: &str) -> SkillList;

    /// The skill `name` as `user` sees it; `None` when there is none (or it does not
    /// load). Reads files, like [`UserSkills::list`].
    fn show(&self, user: &str, name: &str) -> Option<SkillDetail>;
}
