//! The JSON bodies of the HTTP API: what the routes answer and what they accept.
//! Requests are refused (`400`) when they carry fields not listed here; answers may
//! gain fields, which a client ignores.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::history::{
    AnswerCut, ConversationExport, MessageVersion, ReplacedAnswer, SnippetPart, TurnOutcome,
    TurnStatus,
};

mod elicitation;
mod mcp;
mod mcp_offers;
mod permissions;
mod rewind;
mod timeline;
mod usage;

pub use elicitation::{
    ElicitationBody, ElicitationChoice, ElicitationField, ElicitationFieldKind, ElicitationReply,
};
pub use mcp::{McpConnectUrl, McpConnection, McpServerList, McpServerRow};
pub use mcp_offers::{
    McpArgumentRow, McpPromptGet, McpPromptList, McpPromptRow, McpPromptText, McpResourceFile,
    McpResourceFiles, McpResourceList, McpResourceRead, McpResourceRow, McpTemplateRow,
};
pub use permissions::{GrantReach, PermissionGrantList, PermissionGrantRow};
pub use rewind::{FileChangeCard, FileDiff, PathReason, RewindAnswer, RewindBody, RewindScope};
pub use timeline::{
    ContextUsage, ElicitationCard, HookRunCard, MessageRow, Role, Row, SubAgentCard, ThinkBlockRow,
    Timeline, TimelineRow, ToolCallRow,
};
pub use usage::{UsageCost, UsageGroup, UsageReport};

/// Every error answer: `{"error": "what went wrong and what to do"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    /// What went wrong and what to do.
    pub error: String,
}

/// `POST /api/login`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoginBody {
    /// A user's token.
    pub token: String,
}

/// The answer of `POST /api/login`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LoggedIn {
    /// The user signed in.
    pub user: String,
}

/// The answer of `GET /api/me`: who is signed in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Me {
    /// The user's name (without users, the local user the server serves).
    pub name: String,
    /// Whether this server's users sign in with a token (so signing out means
    /// something); `false` on loopback without users, where nobody signs in.
    #[serde(default)]
    pub sign_in: bool,
    /// Whether they are an admin (`smallebot users add NAME --admin`): they see every
    /// user's usage. The local user of a loopback server without users is one.
    #[serde(default)]
    pub admin: bool,
}

/// The answer of `GET /readyz`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Ready {
    /// Always `true` (not ready is a `503` [`ErrorBody`]).
    pub ready: bool,
}

/// A conversation (`GET /api/conversations` lists them, newest first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Conversation {
    /// Its id (a UUID).
    pub id: String,
    /// The user it belongs to.
    pub user_name: String,
    /// Its title.
    pub title: String,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// When it last changed (RFC 3339).
    pub updated_at: String,
    /// The summary of its older turns, once compressed.
    pub compressed_context: Option<String>,
    /// When the summary was written (RFC 3339).
    pub compressed_at: Option<String>,
    /// The last `seq` the summary covers.
    pub compressed_through_seq: Option<i64>,
}

/// `POST /api/conversations` with a body: the conversation is created with its first
/// message, whose turn starts at once (no empty conversation is stored).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct NewConversationBody {
    /// The first message (without it, an empty conversation is created).
    #[serde(default)]
    pub message: Option<String>,
    /// The model it runs on (an id of `GET /api/models`; default: the default model).
    #[serde(default)]
    pub model: Option<String>,
}

/// The answer of `POST /api/conversations` (`201`): the conversation, and with a first
/// message the id of its running turn (as `POST …/messages` answers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CreatedConversation {
    /// The conversation.
    #[serde(flatten)]
    pub conversation: Conversation,
    /// The first turn's id, when a first message was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
}

/// `PATCH /api/conversations/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenameBody {
    /// The new title (trimmed, 1–200 characters).
    pub title: String,
}

/// `POST …/messages` and `POST …/messages/{message_id}/edit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TextBody {
    /// The message (may be empty when it carries attachments).
    pub text: String,
    /// Files uploaded into the conversation (`POST …/attachments`) that the message
    /// carries, by id, in order (`POST …/messages` only; an edit keeps the edited
    /// message's files and takes none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
}

/// The answer to a started turn (`202`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Started {
    /// The turn's id (a UUID): its events carry it.
    pub turn_id: String,
}

/// The answer of `POST …/cancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Cancelled {
    /// Whether a running turn was told to stop.
    pub cancelled: bool,
}

/// `POST …/compact` (the body may be empty).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompactBody {
    /// What the summary should keep.
    #[serde(default)]
    pub focus: Option<String>,
}

/// The answer of `POST …/compact`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CompactReport {
    /// Whether a summary was stored.
    pub ok: bool,
    /// What happened, in words (why nothing was summarized, when `ok` is `false`).
    pub detail: String,
    /// Context estimate before, in tokens.
    pub tokens_before: u64,
    /// Context estimate after.
    pub tokens_after: u64,
}

/// The answer of `POST …/undo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Undone {
    /// The turn taken out of the context; `null` when none was left to undo.
    pub turn_id: Option<String>,
}

/// `POST …/confirmation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfirmationBody {
    /// The `request_id` of the `confirm` event.
    pub request_id: u64,
    /// Whether the call may run.
    pub approve: bool,
    /// How far an approval reaches (default `once`; ignored when not approved).
    #[serde(default)]
    pub scope: ConfirmationScope,
}

/// How far an approval reaches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConfirmationScope {
    /// This call only.
    #[default]
    Once,
    /// Calls like it for the rest of this conversation.
    Conversation,
    /// Calls like it from now on (an allow rule for this user).
    Always,
}

/// The answer of `GET /api/models`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ModelList {
    /// The models a conversation may run on, the default first; empty when there is
    /// no choice.
    pub models: Vec<ModelChoice>,
    /// The id of the default model, if the list has one.
    pub default: Option<String>,
}

/// A model a conversation may run on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoice {
    /// Its id in the server's model list.
    pub id: String,
    /// The model name sent to the endpoint.
    pub model: String,
    /// Its context window in tokens.
    pub context_window: u64,
}

/// `PUT /api/conversations/{id}/model`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChooseModelBody {
    /// A model id from `GET /api/models`; `null` for the default.
    pub model: Option<String>,
}

/// The answer of `PUT /api/conversations/{id}/model`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChosenModel {
    /// The model the conversation runs on from its next turn (`null`: the default).
    pub model: Option<String>,
}

/// What a search hit matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SearchHitKind {
    /// A user message.
    User,
    /// An assistant message.
    Assistant,
    /// A tool call's name and arguments.
    ToolCall,
    /// A tool call's result.
    ToolResult,
    /// An attachment of a user message: its name and, for a text file, its text.
    Attachment,
    /// A kind this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}

/// One match of `GET /api/search` (newest first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchHit {
    /// The conversation.
    pub conversation_id: String,
    /// Its title.
    pub conversation_title: String,
    /// The row's place in the conversation.
    pub seq: i64,
    /// What matched.
    pub kind: SearchHitKind,
    /// The matched text.
    pub text: String,
    /// The text around the first match with the searched words marked.
    #[serde(default)]
    pub snippet: Vec<SnippetPart>,
    /// When the row was written (RFC 3339).
    pub created_at: String,
}

/// Where a skill comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SkillSource {
    /// The system's own (`sys.skills/`, the compaction prompt); never offered to the
    /// model.
    System,
    /// Every user's (`<home>/skills/`).
    Shared,
    /// The signed-in user's own folder; shadows a shared skill of the same name.
    User,
}

/// One skill folder in `GET /api/skills`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkillSummary {
    /// Its name (its folder's name when it does not load).
    pub name: String,
    /// What it does and when to use it (empty when it does not load).
    pub description: String,
    /// Where it comes from.
    pub source: SkillSource,
    /// Its folder on the server.
    pub location: String,
    /// The rules its `SKILL.md` breaks, each `FILE:LINE: rule`; a skill with problems
    /// other than notes (an unknown key) is not offered to the model.
    pub problems: Vec<String>,
}

/// The answer of `GET /api/skills`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkillList {
    /// Every skill folder the user sees: system ones, then the others by name.
    pub skills: Vec<SkillSummary>,
}

/// Where an agent definition comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentSource {
    /// Built in (`general`: the parent's tools and model).
    Builtin,
    /// Every user's (`<home>/agents/`).
    Shared,
    /// The signed-in user's own folder; shadows a shared agent of the same name.
    User,
}

/// One agent definition in `GET /api/agents`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentSummary {
    /// Its name (its file's name without `.md` when it does not load).
    pub name: String,
    /// When to delegate to it (empty when it does not load).
    pub description: String,
    /// Where it comes from.
    pub source: AgentSource,
    /// Its file relative to its agents folder (`reviewer.md`; empty when built in).
    pub location: String,
    /// The tools it may use; `None`: the parent's.
    pub tools: Option<Vec<String>>,
    /// Its model: a models.json id, or `inherit`.
    pub model: String,
    /// Its sandbox (`read-only`, `workspace-write`); `None`: the parent's.
    pub sandbox: Option<String>,
    /// Its `maxToolSteps`; `None`: the parent's limit.
    pub max_tool_steps: Option<u32>,
    /// The rules its file breaks, each `FILE:LINE: rule`; an agent with problems other
    /// than notes (an unknown key) is not offered to the model.
    pub problems: Vec<String>,
}

/// The answer of `GET /api/agents`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentList {
    /// Every agent the user sees, by name.
    pub agents: Vec<AgentSummary>,
}

/// The answer of `GET /api/skills/{name}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkillDetail {
    /// Its name.
    pub name: String,
    /// What it does and when to use it.
    pub description: String,
    /// The instructions: the Markdown after `SKILL.md`'s front matter.
    pub body: String,
    /// Its other files, relative to its folder (`scripts/run.sh`).
    pub files: Vec<String>,
    /// `allowed-tools` as written, one tool per entry; shown only, it grants nothing.
    pub allowed_tools: Vec<String>,
}
