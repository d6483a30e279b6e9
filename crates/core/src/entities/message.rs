use serde::{Deserialize, Serialize};

use super::Seq;
use crate::ids::{ConversationId, MessageId, TurnId};
use crate::time::Timestamp;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
// Not `#[non_exhaustive]`: a new role must be handled wherever messages are sent or shown.
pub enum Role {
    /// The person.
    User,
    /// The model.
    Assistant,
}

const ROLE_WORDS: &[(&str, Role)] = &[("user", Role::User), ("assistant", Role::Assistant)];

impl Role {
    /// The stored word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Assistant => "assistant",
        }
    }

    /// Parses the stored word.
    ///
    /// # Errors
    /// Names the unknown word.
    pub fn parse(text: &str) -> Result<Self, super::UnknownWord> {
        super::parse_word(text, ROLE_WORDS, "role")
    }
}

/// A stored user or assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Its id.
    pub id: MessageId,
    /// Its conversation.
    pub conversation_id: ConversationId,
    /// Its turn.
    pub turn_id: TurnId,
    /// Position in the conversation.
    pub seq: Seq,
    /// Author.
    pub role: Role,
    /// The text.
    pub content: String,
    /// Tokens of `content`, counted once when written.
    pub token_count: i64,
    /// When it was written.
    pub created_at: Timestamp,
    /// The message that replaced this one after an edit; replaced messages never go
    /// to the model.
    pub replaced_by: Option<MessageId>,
    /// Whether this message is the edited version of an earlier one.
    pub is_edited: bool,
}

/// A message to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMessage {
    /// Its conversation.
    pub conversation_id: ConversationId,
    /// Its turn.
    pub turn_id: TurnId,
    /// Author.
    pub role: Role,
    /// The text.
    pub content: String,
    /// Tokens of `content`.
    pub token_count: i64,
}
