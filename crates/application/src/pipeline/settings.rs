//! Settings of the pipeline and of one send.

use std::time::Duration;

use smallebot_core::entities::BilledTurn;
use smallebot_core::ids::AttachmentId;
use smallebot_core::rules::attachment::AttachmentLimits;
use smallebot_core::rules::tool_search::ToolLoading;
use smallebot_core::rules::upload_quota::UploadQuotas;
use tokio_util::sync::CancellationToken;

/// How the pipeline behaves (from `agent.json`, resolved by the host).
#[derive(Debug, Clone, PartialEq)]
pub struct PipelineSettings {
    /// Most model steps in one turn (each step may call tools).
    pub max_tool_steps: usize,
    /// Compress when the estimate reaches this share of the context window.
    pub compression_threshold: f64,
    /// Turns kept verbatim by compression (the running turn counts).
    pub keep_recent_turns: usize,
    /// Longest a summary may take before the compression is given up.
    pub compression_timeout: Duration,
    /// Said as `Warning` events when a conversation's first turn in this process
    /// starts: what the person should know about this setup (an MCP server that did
    /// not start, say).
    pub notices: Vec<String>,
    /// The limits of files given with a message (agent.json `attachments`).
    pub attachments: AttachmentLimits,
    /// The quotas of uploads not sent yet, of parts and of files (agent.json
    /// `attachments`).
    pub uploads: UploadQuotas,
    /// When the tools that may wait (MCP tools not pinned) are offered through the
    /// search tool instead of with every request (agent.json `mcp`).
    pub tool_loading: ToolLoading,
}

impl Default for PipelineSettings {
    fn default() -> Self {
        Self {
            max_tool_steps: 50,
            compression_threshold: 0.8,
            keep_recent_turns: 2,
            compression_timeout: Duration::from_secs(180),
            notices: Vec::new(),
            attachments: AttachmentLimits::default(),
            uploads: UploadQuotas::default(),
            tool_loading: ToolLoading::default(),
        }
    }
}

/// Options of one send.
#[derive(Debug, Clone, Default)]
pub struct SendOptions {
    /// Ask the model to reason (stored on the turn).
    pub thinking: bool,
    /// Cancels the turn when triggered (also reachable via
    /// [`crate::ConversationService::cancel`]).
    pub cancel: Option<CancellationToken>,
    /// Ask the model for a title beside a new conversation's first turn
    /// ([`crate::ConversationService::start`] only; the fallback title made from the
    /// first message is given either way).
    pub title: bool,
    /// Files uploaded into the conversation ([`crate::ConversationService::attach`])
    /// that the message carries, in order.
    pub attachments: Vec<AttachmentId>,
    /// The turn whose budget and usage this turn's model requests count in: a
    /// sub-agent's parent's (the runner sets it); `None`: its own.
    pub billed_to: Option<BilledTurn>,
}
