//! The peer port: the other processes serving the same conversations (several servers
//! on one database), asked to cancel a turn one of them runs.

use async_trait::async_trait;
use smallebot_core::ids::ConversationId;

/// Reaches the other processes on the same database. A turn runs in the process that
/// started it (its cancellation token lives there); another process that is asked to
/// cancel it forwards the request here, and the owner cancels and answers.
#[async_trait]
pub trait PeerTurns: Send + Sync + std::fmt::Debug {
    /// Asks every other process to cancel the running turn of `conversation_id`;
    /// whether the one running it answered that it did (false when none answered in
    /// time).
    async fn cancel(&self, conversation_id: ConversationId) -> bool;
}
