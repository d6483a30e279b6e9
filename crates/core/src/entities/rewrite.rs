//! What the rewrite primitives of a store take: a change decided by the application
//! on rows it read, with the state it read them in, so the store refuses the change
//! when another writer moved the conversation meanwhile.

use super::{LeaseOwner, Message, Seq, Turn};
use crate::ids::{ConversationId, MessageId, TurnId};

/// The conversation state a rewrite was decided on. A store applies the rewrite only
/// while it still holds (checked inside the write transaction), and refuses with
/// [`RepositoryError::Conflict`](crate::RepositoryError::Conflict) otherwise; it
/// refuses with [`RepositoryError::TurnRunning`](crate::RepositoryError::TurnRunning)
/// while a turn of the conversation runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RewriteGuard {
    /// The conversation.
    pub conversation_id: ConversationId,
    /// Its history boundary ([`Conversation::history_boundary`](super::Conversation::history_boundary))
    /// when the rewrite was decided.
    pub boundary: Seq,
}

/// Replace a user message by a new version: the rows of its turn but the message and
/// every later turn are discarded, a new turn leased to `owner` starts with the new
/// message (marked edited), and the old message is marked replaced by it.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageReplacement {
    /// The state the edit was decided on.
    pub guard: RewriteGuard,
    /// The message replaced; it must still be current (not replaced).
    pub message_id: MessageId,
    /// The new text.
    pub content: String,
    /// Its token count.
    pub token_count: i64,
    /// Who runs the new turn.
    pub owner: LeaseOwner,
}

/// Start a turn again from its user message: the turn's other rows and every later
/// turn are discarded, an undone turn is brought back, and the turn runs again leased
/// to `owner`.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnRestart {
    /// The state the regeneration was decided on.
    pub guard: RewriteGuard,
    /// The turn.
    pub turn_id: TurnId,
    /// The user message kept; it must still be a current message of the turn.
    pub keep_message: MessageId,
    /// Who runs the turn now.
    pub owner: LeaseOwner,
}

/// Mark a turn and its rows undone. The turn must still be the conversation's last
/// turn not undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnUndo {
    /// The state the undo was decided on.
    pub guard: RewriteGuard,
    /// The turn.
    pub turn_id: TurnId,
}

/// A turn with what the rewrite rules read of it.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnContents {
    /// The turn.
    pub turn: Turn,
    /// Its messages in `seq` order (replaced ones included).
    pub messages: Vec<Message>,
    /// The highest `seq` among its messages, tool calls and think blocks; `None` when
    /// it has no rows.
    pub last_row_seq: Option<Seq>,
}
