//! The tools port.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::ids::{ConversationId, TurnId};
use tokio_util::sync::CancellationToken;

/// A tool's description for the model (OpenAI function schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchema {
    /// PascalCase name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// A call to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInvocation {
    /// The model's id for the call.
    pub call_id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as JSON text (may be invalid: the executor answers with an error
    /// result the model can act on).
    pub arguments: String,
}

/// Where a call runs.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The conversation (also available through [`crate::scope::current_conversation`]).
    pub conversation_id: ConversationId,
    /// The turn.
    pub turn_id: TurnId,
    /// Cancelled when the turn is cancelled; long-running tools must stop promptly.
    pub cancel: CancellationToken,
}

/// A finished call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome {
    /// The result text the model sees (full; the history builder truncates).
    pub content: String,
    /// How it ended.
    pub status: ToolCallStatus,
}

impl ToolOutcome {
    /// A successful result.
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            status: ToolCallStatus::Ok,
        }
    }

    /// A failed call; `content` says what went wrong and what to do.
    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            status: ToolCallStatus::Error,
        }
    }
}

/// The tools the model may call.
#[async_trait]
pub trait ToolExecutor: Send + Sync {
    /// Schemas of every tool, in a stable order.
    fn schemas(&self) -> Vec<ToolSchema>;

    /// Runs one call. Never panics: unknown tools, invalid arguments and failures are
    /// outcomes with status `error`.
    async fn execute(&self, invocation: &ToolInvocation, context: &ToolContext) -> ToolOutcome;
}
