use serde::{Deserialize, Serialize};

use super::Seq;
use crate::ids::{ConversationId, ThinkBlockId, TurnId};
use crate::time::Timestamp;

/// Reasoning the model streamed during a turn (kept for display, never resent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkBlock {
    /// Its id.
    pub id: ThinkBlockId,
    /// Its conversation.
    pub conversation_id: ConversationId,
    /// Its turn.
    pub turn_id: TurnId,
    /// Position in the conversation.
    pub seq: Seq,
    /// The reasoning text.
    pub content: String,
    /// When it was written.
    pub created_at: Timestamp,
}

/// A think block to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewThinkBlock {
    /// Its conversation.
    pub conversation_id: ConversationId,
    /// Its turn.
    pub turn_id: TurnId,
    /// The reasoning text.
    pub content: String,
}
