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

/// Why an answer stops short: a limit stopped the model, not its own end. The answer
/// is kept as far as it came; show it marked as cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AnswerCut {
    /// The answer reached the most tokens its request allowed (`maxOutputTokens`).
    OutputLimit,
    /// The model server's context filled up while it wrote.
    ContextFull,
    /// A reason this client does not know.
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
    /// Set when a limit cut its answer (kept as far as it came); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<AnswerCut>,
}

/// An earlier version of an exchange, replaced by an edit of its message or a
/// regeneration of its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MessageVersion {
    /// The user message of that version: a replaced one (also a row of the timeline,
    /// with `replaced_by`), or the current one when only the answer was regenerated.
    pub id: String,
    /// The user message's text.
    pub content: String,
    /// When the user message was sent (RFC 3339).
    pub created_at: String,
    /// The answer that version had (its assistant messages joined by a blank line);
    /// `null` when it had none.
    pub answer: Option<String>,
    /// That answer's Markdown as sanitized HTML (as a timeline row's `html`); absent
    /// when it had none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_html: Option<String>,
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
    /// The answers edits and regenerations replaced, oldest first.
    #[serde(default)]
    pub answer_versions: Vec<ReplacedAnswer>,
}

/// An answer an edit or a regeneration replaced (in an export).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReplacedAnswer {
    /// The user message it answered (a row of `rows`).
    pub message_id: String,
    /// The turn that gave it.
    pub turn_id: String,
    /// Its text: the turn's assistant messages joined by a blank line.
    pub content: String,
    /// When it was replaced (RFC 3339).
    pub created_at: String,
}
