//! Attachments: files a person gives with a user message (docs/design.md, Attachments).
//!
//! An attachment is uploaded into a conversation first (it then belongs to no message)
//! and is linked to the user message that carries it in the transaction that stores
//! that message. Its content is stored once per SHA-256, whatever the number of
//! attachments that share it.

use serde::{Deserialize, Serialize};

use crate::ids::{AttachmentId, ConversationId, MessageId};
use crate::time::Timestamp;

/// How an attachment reaches the model, decided from its content (never from the name
/// or the type a client claimed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttachmentKind {
    /// A raster image a vision model can see (PNG, JPEG, GIF, WebP): sent as an image
    /// part to a model that supports images.
    Image,
    /// UTF-8 text (code, logs, CSV, JSON, Markdown, SVG): inlined into the message
    /// within a token budget.
    Text,
    /// Anything else (PDF, archives, binaries): saved into the workspace and named by
    /// its path, so the model's tools can read it.
    File,
}

const KIND_WORDS: &[(&str, AttachmentKind)] = &[
    ("image", AttachmentKind::Image),
    ("text", AttachmentKind::Text),
    ("file", AttachmentKind::File),
];

impl AttachmentKind {
    /// The stored word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Image => "image",
            Self::Text => "text",
            Self::File => "file",
        }
    }

    /// Parses the stored word.
    ///
    /// # Errors
    /// Names the unknown word.
    pub fn parse(text: &str) -> Result<Self, super::UnknownWord> {
        super::parse_word(text, KIND_WORDS, "attachment kind")
    }
}

/// Width and height of an image, in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSize {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// What is known of a file from its name and content alone: the outcome of
/// [`crate::rules::attachment::describe`], the same on every store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachmentFacts {
    /// The file name as given, cleaned (no directories, no control characters).
    pub name: String,
    /// The media type sniffed from the content (`image/png`, `text/csv`,
    /// `application/pdf`, `application/octet-stream`, …).
    pub media_type: String,
    /// How it reaches the model.
    pub kind: AttachmentKind,
    /// Size in bytes.
    pub size: i64,
    /// Lowercase hexadecimal SHA-256 of the content: the key it is stored under.
    pub sha256: String,
    /// An image's size in pixels (`None` for other kinds, or an image whose header
    /// could not be read).
    pub image_size: Option<ImageSize>,
}

/// A stored attachment (its content is read separately).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    /// Its id.
    pub id: AttachmentId,
    /// The conversation it was uploaded into.
    pub conversation_id: ConversationId,
    /// The user message that carries it; `None` while it is uploaded but not yet sent.
    pub message_id: Option<MessageId>,
    /// The file name (cleaned).
    pub name: String,
    /// The sniffed media type.
    pub media_type: String,
    /// How it reaches the model.
    pub kind: AttachmentKind,
    /// Size in bytes.
    pub size: i64,
    /// Lowercase hexadecimal SHA-256 of the content.
    pub sha256: String,
    /// An image's size in pixels.
    pub image_size: Option<ImageSize>,
    /// When it was uploaded.
    pub created_at: Timestamp,
}

/// An attachment to store: its facts and its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAttachment {
    /// The conversation it is uploaded into.
    pub conversation_id: ConversationId,
    /// What [`crate::rules::attachment::describe`] found.
    pub facts: AttachmentFacts,
    /// The bytes (stored once per `facts.sha256`).
    pub content: Vec<u8>,
}
