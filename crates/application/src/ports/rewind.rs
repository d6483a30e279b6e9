//! The rewind port: taking a conversation's turns back — what their tool calls did to
//! the workspace's files, the turns themselves, or both (checkpoints).

use async_trait::async_trait;
use smallebot_core::ids::ConversationId;
use smallebot_protocol::api::{RewindAnswer, RewindBody};

/// Why a rewind was not done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RewindError {
    /// It cannot be done as asked (no such turn, nothing to undo); the message says why
    /// and what to do.
    #[error("{0}")]
    Refused(String),
    /// A turn of the conversation runs: rewind once it has finished.
    #[error("{0}")]
    Busy(String),
    /// The workspace or the store failed.
    #[error("{0}")]
    Failed(String),
}

/// Rewinds the conversations of the users of a home, each in the workspace its owner's
/// tools work in.
#[async_trait]
pub trait ConversationRewind: Send + Sync {
    /// Does `body` to `conversation_id`, a conversation of `user` (the caller checked
    /// it is theirs): never while one of its turns runs; files changed since the turns
    /// are left alone unless forced, and the rewind's own changes are kept so it can be
    /// undone.
    ///
    /// # Errors
    /// As [`RewindError`] says.
    async fn rewind(
        &self,
        user: &str,
        conversation_id: ConversationId,
        body: &RewindBody,
    ) -> Result<RewindAnswer, RewindError>;
}
