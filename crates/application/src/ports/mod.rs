//! The traits the pipeline talks to; other crates implement them.
//!
//! - [`AgentDirectory`]: the agent definitions a user sees (`GET /api/agents`).
//! - [`CommandConfirmer`]: asks the person whether a command may run ([`DenyAll`]
//!   where nobody can be asked).
//! - [`Elicitor`]: asks the person to fill in an MCP server's form during a tool call
//!   ([`NoOneToAsk`] where nobody can be asked).
//! - [`ChatModel`]: one model call (streamed), implemented on an OpenAI-compatible
//!   endpoint by the agent crate.
//! - [`ContextAssembler`]: turns stored rows into a [`ModelRequest`] and counts tokens
//!   exactly the way the request is built.
//! - [`ToolExecutor`]: the tools the model may call.
//! - [`Hooks`]: the owner's programs run at fixed points of a turn (hooks.json).
//! - [`Summarizer`]: writes compression summaries.
//! - [`TaskPlan`]: the conversation's task list, shown in the prompt and fed with
//!   finished tool calls.
//! - [`ProcessProbe`]: whether a turn's owning process still exists (turn leases).
//! - [`PeerTurns`]: the other processes on the same database, asked to cancel a turn
//!   one of them runs.
//! - [`UserSkills`]: the skills each user sees, as the front ends list them.
//! - [`WorkspaceChanges`]: what a step's calls changed in the workspace's files
//!   (checkpoints).
//! - [`UserMcpServers`]: the MCP servers each user sees and connects with their own
//!   sign-in (`/api/mcp/…`).
//! - [`UserMcpOffers`]: their resources and prompts, for the page's message box.
//! - [`ConversationRewind`]: takes a conversation's turns back, its files, its context
//!   or both (checkpoints; `POST /api/conversations/{id}/rewind`).

mod agents;
mod args;
mod confirm;
mod context;
mod elicit;
mod hooks;
mod mcp;
mod mcp_offers;
mod metrics;
mod model;
mod peers;
mod process;
mod rewind;
mod skills;
mod summarizer;
mod tasks;
mod tools;
mod workspace;

pub use agents::AgentDirectory;
pub use args::{ArgError, Args};
pub use confirm::{Answer, CommandConfirmer, ConfirmationRequest, DenyAll};
pub use context::{AttachmentContents, ContextAssembler, ContextEstimate, PromptInput};
pub use elicit::{CallElicitations, ElicitationAnswer, ElicitationRequest, Elicitor, NoOneToAsk};
pub use hooks::{CallHookReport, CallHooks, Hooks};
pub use mcp::{McpConnectError, UserMcpServers};
pub use mcp_offers::{McpOfferError, McpResourcePart, UserMcpOffers};
pub use metrics::MetricsExport;
pub use model::{
    ChatModel, DeltaSink, ModelChoice, ModelDelta, ModelError, ModelErrorKind, ModelMessage,
    ModelPart, ModelRequest, ModelResponse, ModelToolCall, ModelUsage, RequestBilling,
    RequestPurpose, RetryNotice, ServerCheck,
};
pub use peers::PeerTurns;
pub use process::{ProcessProbe, UnknownProcesses};
pub use rewind::{ConversationRewind, RewindError};
pub use skills::UserSkills;
pub use summarizer::{Summarizer, SummaryInput};
pub use tasks::TaskPlan;
pub use tools::{
    CallRequester, LoadedTools, OnDemandTools, PlanAccess, ToolContext, ToolEffects, ToolExecutor,
    ToolInvocation, ToolOutcome, ToolSchema, ToolTraits, TurnUserRules,
};
pub use workspace::{WorkspaceChanges, WorkspaceChangesError};
