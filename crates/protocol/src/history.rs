//! What the API tells of a conversation's history beyond its rows: how each turn ended,
//! the earlier versions of an edited message, a search hit's snippet, and the
//! conversation exported whole.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::api::{Conversation, Row};

/// How a turn stands, as stored (it survives a restart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TurnStatus {
    /// It runs now.
    Running,
    /// The model answered.
    Completed,
    /// An error ended it (`error` says which); its partial output is kept.
    Failed,
    /// The person stopped it; its partial answer is kept.
    Cancelled,
    /// The server stopped during it.
    Interrupted,
    /// A status this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// A turn of the timeline and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TurnOutcome {
    /// Its id (rows name it in `turn_id`).
    pub id: String,
    /// Its place in the conversation (before all of its rows).
    pub seq: i64,
    /// How it stands.
    pub status: TurnStatus,
    /// The error text of a failed turn.
    pub error: Option<String>,
    /// When it started (RFC 3339).
    pub created_at: String,
    /// When it ended (RFC 3339), `null` while it runs.
    pub completed_at: Option<String>,
    /// Whether it was taken out of the context (`POST …/undo`).
    pub undone: bool,
}

/// An earlier version of a user message, replaced by an edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MessageVersion {
    /// The replaced message's id (also a row of the timeline, with `replaced_by`).
    pub id: String,
    /// Its text.
    pub content: String,
    /// When it was sent (RFC 3339).
    pub created_at: String,
}

/// A piece of a search hit's snippet. The pieces joined are the snippet; a `marked`
/// piece is a searched word. Plain text, never markup: show each with `textContent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SnippetPart {
    /// The text.
    pub text: String,
    /// Whether it is a searched word.
    pub marked: bool,
}

/// `GET /api/conversations/{id}/export?format=json`: the structured conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConversationExport {
    /// The conversation (its compression summary included).
    pub conversation: Conversation,
    /// Its turns in order, with how each ended.
    pub turns: Vec<TurnOutcome>,
    /// Every stored row in `seq` order: replaced messages and reasoning included.
    pub rows: Vec<Row>,
}
