//! The users' own permission rules' repository.

use async_trait::async_trait;

use super::RepoResult;
use crate::entities::UserRules;

/// Each user's own permission rules (`smallebot users set NAME --deny … --ask …`), kept
/// with the user and read when one of their turns starts, so a change applies from
/// their next turn.
#[async_trait]
pub trait UserRuleRepository: Send + Sync {
    /// The own rules of user `name`: none for a user without any, or no such user
    /// (a single-user home has no users).
    async fn user_rules(&self, name: &str) -> RepoResult<UserRules>;

    /// Replaces user `name`'s own rules with `rules`; whether there was such a user.
    async fn set_user_rules(&self, name: &str, rules: &UserRules) -> RepoResult<bool>;
}
