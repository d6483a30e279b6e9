//! The timeline of a conversation as `GET /api/conversations/{id}` answers it: the
//! conversation, its context estimate and every stored row with how it stands.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Conversation, MessageVersion, TurnOutcome};
use crate::events::{SubAgentOutcome, ToolCallStatus};
use crate::plan::Plan;

/// The answer of `GET /api/conversations/{id}`: the conversation and every stored row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Timeline {
    /// The conversation.
    pub conversation: Conversation,
    /// Its rows in `seq` order.
    pub rows: Vec<TimelineRow>,
    /// Whether a turn runs now (on this server or another on the same database).
    pub busy: bool,
    /// The task list, when the conversation has tasks.
    pub plan: Option<Plan>,
    /// Why the task list could not be read, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_error: Option<String>,
    /// How full the context window is for the next request.
    pub context: ContextUsage,
    /// The id of the model the next turn runs on (`null` when there is no choice).
    pub model: Option<String>,
    /// Every turn in order, with how it ended.
    #[serde(default)]
    pub turns: Vec<TurnOutcome>,
    /// The sub-agents this conversation's `Delegate` calls ran, oldest first, as their
    /// own conversations stand (the page rebuilds their cards from them).
    #[serde(default)]
    pub sub_agents: Vec<SubAgentCard>,
    /// What the turns' tool calls (and rewinds) changed in the workspace's files, in
    /// turn order.
    #[serde(default)]
    pub file_changes: Vec<super::FileChangeCard>,
}

/// A sub-agent a `Delegate` call ran, read from its stored conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SubAgentCard {
    /// The parent's `Delegate` call it answered.
    pub call_id: String,
    /// Its own conversation (a UUID; `GET /api/conversations/{id}` reads it whole).
    pub conversation_id: String,
    /// The agent's name.
    pub agent: String,
    /// Its conversation's title (`agent: description`).
    pub title: String,
    /// How its latest run ended; `null` while it runs.
    pub outcome: Option<SubAgentOutcome>,
    /// Its latest run's error, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How many tool calls its latest run made.
    pub tool_calls: u32,
}

/// The context estimate for the next request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContextUsage {
    /// Estimated tokens.
    pub used: u64,
    /// The model's context window.
    pub window: u64,
    /// `used / window`.
    pub ratio: f64,
    /// Whether `used` is exact; `false`: an upper bound.
    pub exact: bool,
}

/// A row of the timeline with how it stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TimelineRow {
    /// Whether compression replaced it in the model's context by the summary.
    pub summarized: bool,
    /// Whether its turn was taken out of the context (`POST …/undo`).
    pub undone: bool,
    /// An assistant message's Markdown as sanitized HTML.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub html: Option<String>,
    /// A user message's earlier versions (replaced by edits), oldest first; absent
    /// when it replaced none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<MessageVersion>,
    /// A tool call's hook runs (hooks.json's `PreToolUse`, `PostToolUse`), in the
    /// order they ended; absent when no hook ran for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<HookRunCard>,
    /// The row, tagged by `kind`.
    #[serde(flatten)]
    pub row: Row,
}

/// One run of a hook (hooks.json) for a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HookRunCard {
    /// The event it ran at (`PreToolUse`, `PostToolUse`).
    pub event: String,
    /// Its command line.
    pub command: String,
    /// Its exit code; `null` when it was killed (timeout, cancel, a signal).
    pub exit_code: Option<i32>,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// What it decided: `allow`, `ask`, `block`, `warning`, or empty.
    pub decision: String,
}

/// What became of an MCP server's question to the person during a tool call
/// (elicitation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ElicitationCard {
    /// The server that asked.
    pub server: String,
    /// Its message.
    pub message: String,
    /// `accepted`, `declined`, `cancelled`, `timedOut` or `noOneToAsk`.
    pub action: String,
    /// The answer sent, when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<serde_json::Map<String, serde_json::Value>>,
}

/// A stored row, tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Row {
    /// A user or assistant message.
    Message(MessageRow),
    /// A tool call with its result.
    ToolCall(ToolCallRow),
    /// A reasoning block.
    ThinkBlock(ThinkBlockRow),
    /// A kind of row this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// The person.
    User,
    /// The model.
    Assistant,
    /// A role this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// A message row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MessageRow {
    /// Its id (a UUID).
    pub id: String,
    /// The conversation.
    pub conversation_id: String,
    /// Its turn.
    pub turn_id: String,
    /// Its place in the conversation.
    pub seq: i64,
    /// Who wrote it.
    pub role: Role,
    /// Its text (an assistant message's is Markdown; empty when a model step only
    /// called tools).
    pub content: String,
    /// Tokens it counts in a request.
    pub token_count: i64,
    /// When it was written (RFC 3339).
    pub created_at: String,
    /// The message that replaced it (an edit), if any.
    pub replaced_by: Option<String>,
    /// Whether it replaced an earlier message.
    pub is_edited: bool,
    /// The files a user message carries, in order (absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<crate::attachments::Attachment>,
}

/// A tool call row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCallRow {
    /// Its id (a UUID).
    pub id: String,
    /// The conversation.
    pub conversation_id: String,
    /// Its turn.
    pub turn_id: String,
    /// Its place in the conversation.
    pub seq: i64,
    /// The model's id for the call.
    pub call_id: String,
    /// The tool.
    pub tool_name: String,
    /// Its arguments (JSON text).
    pub arguments: String,
    /// Its result; `null` while it runs or when it was interrupted without one.
    pub result: Option<String>,
    /// How it stands.
    pub status: ToolCallStatus,
    /// Tokens it counts in a request.
    pub token_count: i64,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// When it ended (RFC 3339).
    pub completed_at: Option<String>,
}

/// A reasoning row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThinkBlockRow {
    /// Its id (a UUID).
    pub id: String,
    /// The conversation.
    pub conversation_id: String,
    /// Its turn.
    pub turn_id: String,
    /// Its place in the conversation.
    pub seq: i64,
    /// The reasoning.
    pub content: String,
    /// When it was written (RFC 3339).
    pub created_at: String,
}
