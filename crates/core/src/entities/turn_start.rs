//! A turn to start, and what starting it gives back with the rows of its context
//! ([`TurnRepository::start_turn_in_context`](crate::repository::TurnRepository::start_turn_in_context)).

use super::{FirstTurnTitle, HistoryRow, LeaseOwner, Message, Seq, Turn};
use crate::ids::{AttachmentId, ConversationId};

/// A running turn to start with its user message.
#[derive(Debug, Clone, Copy)]
pub struct NewTurn<'a> {
    /// The conversation.
    pub conversation_id: ConversationId,
    /// The turn's thinking mode.
    pub thinking_mode: bool,
    /// The user message.
    pub content: &'a str,
    /// Uploads linked to the message in the same transaction.
    pub attachments: &'a [AttachmentId],
    /// The message's tokens.
    pub token_count: i64,
    /// The process that runs the turn.
    pub owner: &'a LeaseOwner,
    /// The title a new conversation takes with its first turn, if any.
    pub title: Option<FirstTurnTitle<'a>>,
    /// The compression boundary the returned rows follow.
    pub boundary: Seq,
}

impl<'a> NewTurn<'a> {
    /// A turn of `conversation_id` with the user message `content`, run by `owner`:
    /// no thinking, no attachments, no token count, no title, rows from the start of
    /// the conversation. Set the other fields with struct update syntax
    /// (`NewTurn { thinking_mode: true, ..NewTurn::new(id, "hi", &owner) }`).
    #[must_use]
    pub fn new(conversation_id: ConversationId, content: &'a str, owner: &'a LeaseOwner) -> Self {
        Self {
            conversation_id,
            thinking_mode: false,
            content,
            attachments: &[],
            token_count: 0,
            owner,
            title: None,
            boundary: 0,
        }
    }
}

/// A started turn, its user message, and the rows its first request is built from when
/// the store has them at hand.
#[derive(Debug, Clone, PartialEq)]
pub struct StartedTurn {
    /// The running turn.
    pub turn: Turn,
    /// Its user message.
    pub message: Message,
    /// Whether the conversation took [`NewTurn::title`].
    pub titled: bool,
    /// The rows in the context after [`NewTurn::boundary`] as stored once the turn
    /// started (its user message last), as
    /// [`HistoryRepository::context_rows_after`](crate::repository::HistoryRepository::context_rows_after)
    /// answers them; `None` when the store would have to read them.
    pub rows: Option<Vec<HistoryRow>>,
}
