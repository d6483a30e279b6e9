//! Attachments: files a person gives with a user message, as the HTTP API answers
//! them (`POST …/attachments`, and on each user message of the timeline).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How an attachment reaches the model, sniffed from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum AttachmentKind {
    /// A raster image (PNG, JPEG, GIF, WebP): an image part for a model that sees
    /// images.
    Image,
    /// UTF-8 text: inlined into the message.
    Text,
    /// Anything else: saved in the workspace and named by its path.
    File,
    /// A kind this client does not know yet.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// A stored attachment. Its content is at
/// `GET /api/conversations/{conversation_id}/attachments/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Attachment {
    /// Its id (a UUID): what a message's `attachments` names.
    pub id: String,
    /// The conversation it was uploaded into.
    pub conversation_id: String,
    /// The file name (cleaned: no directories, no control characters).
    pub name: String,
    /// The media type sniffed from the content (never the one the client claimed).
    pub media_type: String,
    /// How it reaches the model.
    pub kind: AttachmentKind,
    /// Size in bytes.
    pub size: i64,
    /// An image's width in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// An image's height in pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
}

/// The answer of `POST /api/conversations/{id}/attachments` (`201`): the stored
/// files, in the order they were sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Uploaded {
    /// The attachments, to name in the next message's `attachments`.
    pub attachments: Vec<Attachment>,
}
