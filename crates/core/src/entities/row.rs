use serde::{Deserialize, Serialize};

use super::{Message, Seq, ThinkBlock, ToolCall};
use crate::ids::TurnId;
use crate::time::Timestamp;

/// One row of a conversation's timeline, in `seq` order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
// Not `#[non_exhaustive]`: a new kind of row must be handled by every reader of the
// history (request building, summaries, search display), so it is meant to break
// their `match` rather than fall into a wildcard.
pub enum HistoryRow {
    /// A user or assistant message.
    Message(Message),
    /// A tool call with its result.
    ToolCall(ToolCall),
    /// A reasoning block.
    ThinkBlock(ThinkBlock),
}

impl HistoryRow {
    /// The row's position in its conversation.
    #[must_use]
    pub fn seq(&self) -> Seq {
        match self {
            Self::Message(m) => m.seq,
            Self::ToolCall(t) => t.seq,
            Self::ThinkBlock(b) => b.seq,
        }
    }

    /// The turn the row belongs to.
    #[must_use]
    pub fn turn_id(&self) -> TurnId {
        match self {
            Self::Message(m) => m.turn_id,
            Self::ToolCall(t) => t.turn_id,
            Self::ThinkBlock(b) => b.turn_id,
        }
    }

    /// When the row was written (a tool call: when it started).
    #[must_use]
    pub fn created_at(&self) -> Timestamp {
        match self {
            Self::Message(m) => m.created_at,
            Self::ToolCall(t) => t.started_at,
            Self::ThinkBlock(b) => b.created_at,
        }
    }

    /// Stored token count (think blocks are never sent, so they count 0).
    #[must_use]
    pub fn token_count(&self) -> i64 {
        match self {
            Self::Message(m) => m.token_count,
            Self::ToolCall(t) => t.token_count,
            Self::ThinkBlock(_) => 0,
        }
    }
}
