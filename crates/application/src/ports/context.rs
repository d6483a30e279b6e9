//! The context port: building requests from stored rows and counting their tokens.

use serde::Serialize;
use smallebot_core::entities::{Conversation, HistoryRow, Role};
use smallebot_core::ids::TurnId;

use super::model::ModelRequest;
use super::tools::ToolSchema;

/// What a chat request is built from.
#[derive(Debug, Clone, Copy)]
pub struct PromptInput<'a> {
    /// The conversation (its summary goes into the system prompt).
    pub conversation: &'a Conversation,
    /// Rows after the compression boundary, in `seq` order (the current turn's user
    /// message and its steps so far included).
    pub rows: &'a [HistoryRow],
    /// The running turn (its tool calls always go in native form).
    pub current_turn: TurnId,
    /// The task list as displayed, if any.
    pub plan: Option<&'a str>,
    /// Tools offered to the model.
    pub tools: &'a [ToolSchema],
    /// Whether reasoning is requested.
    pub thinking: bool,
}

/// How full the context window is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ContextEstimate {
    /// Estimated tokens of the request.
    pub used: u64,
    /// The model's context window.
    pub window: u64,
}

impl ContextEstimate {
    /// `used / window` (0 for an empty window).
    #[must_use]
    pub fn ratio(&self) -> f64 {
        if self.window == 0 {
            0.0
        } else {
            self.used as f64 / self.window as f64
        }
    }
}

/// Builds model requests and counts tokens the same way.
pub trait ContextAssembler: Send + Sync {
    /// The chat request for the next model step.
    fn build_request(&self, input: &PromptInput<'_>) -> ModelRequest;

    /// The estimate without building the request: `stored_tokens` (the sum of stored
    /// counts after the boundary) + the system prompt + tool schemas + `new_message`.
    /// Never re-tokenizes the history.
    fn estimate(
        &self,
        conversation: &Conversation,
        stored_tokens: i64,
        plan: Option<&str>,
        tools: &[ToolSchema],
        new_message: Option<&str>,
    ) -> ContextEstimate;

    /// Tokens a message row costs in a request (stored in `token_count`).
    fn message_tokens(&self, role: Role, content: &str) -> i64;

    /// Tokens a tool call row costs in a request, with its result as it is sent
    /// (truncated), or without a result while it runs.
    fn tool_call_tokens(&self, name: &str, arguments: &str, result: Option<&str>) -> i64;

    /// The chat model's context window in tokens.
    fn context_window(&self) -> u64;
}
