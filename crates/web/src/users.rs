//! The ports the web app asks for users: whose token a request carries, and each user's
//! own conversation service. The host implements them on its store and its assembly.

use std::sync::Arc;

use async_trait::async_trait;
use smallebot_application::ConversationService;
use smallebot_core::RepositoryError;

/// The skills port, the application's (re-exported where the web's other ports are).
pub use smallebot_application::ports::UserSkills;

/// Finds the user a token digest belongs to (the host implements it on its store).
#[async_trait]
pub trait TokenUsers: Send + Sync {
    /// The user whose token has `digest` ([`token_digest`](crate::auth::token_digest)), if any.
    async fn user_for_digest(&self, digest: &str) -> Result<Option<String>, RepositoryError>;

    /// Whether `user` is an admin (`smallebot users add NAME --admin`): they see every
    /// user's usage.
    async fn is_admin(&self, user: &str) -> Result<bool, RepositoryError>;
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
