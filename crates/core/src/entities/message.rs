use serde::{Deserialize, Serialize};

use super::{Attachment, Seq};
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
    /// The files and images the person gave with it (user messages only), in upload
    /// order: their metadata, never their content. Empty for most messages, and then
    /// left out of the serialized form.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
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

impl Message {
    /// `new` as just stored with `id` at `seq` and `at`: a current version (replaced by
    /// nothing yet), `is_edited` when it is an edit's new version; its attachments, if
    /// any, are linked apart.
    #[must_use]
    pub fn stored(
        id: MessageId,
        new: NewMessage,
        seq: Seq,
        at: Timestamp,
        is_edited: bool,
    ) -> Self {
        Self {
            id,
            conversation_id: new.conversation_id,
            turn_id: new.turn_id,
            seq,
            role: new.role,
            content: new.content,
            token_count: new.token_count,
            created_at: at,
            replaced_by: None,
            is_edited,
            attachments: Vec::new(),
        }
    }
}

/// An answer an edit or a regeneration replaced: the assistant text a turn had when
/// its exchange was rewritten, kept so that earlier versions stay readable. It never
/// goes to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerVersion {
    /// The conversation.
    pub conversation_id: ConversationId,
    /// The turn that gave the answer.
    pub turn_id: TurnId,
    /// The user message it answered (replaced by an edit, or the one regenerated).
    pub message_id: MessageId,
    /// The answer's text: the turn's assistant messages joined by a blank line.
    pub content: String,
    /// When it was replaced.
    pub created_at: Timestamp,
}
