//! [`McpTool`]: one tool of an MCP server in the registry, called through the same path
//! as the built-in tools.

use std::sync::Arc;

use serde_json::Value;
use smallebot_application::ports::{
    CommandConfirmer, ConfirmationRequest, ToolContext, ToolOutcome, ToolSchema, ToolTraits,
};
use smallebot_core::entities::ToolCallStatus;

use super::connection::McpConnection;
use super::content::result_text;
use super::names::tool_name;
use super::schema::check_arguments;
use smallebot_application::ports::Args;

/// How long the person has to answer a confirmation.
const CONFIRM_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// An MCP tool as the model sees it: `{server}__{tool}`.
pub struct McpTool {
    connection: Arc<McpConnection>,
    name: String,
    remote: String,
    description: String,
    schema: Value,
    read_only: bool,
    confirm: bool,
    confirmer: Arc<dyn CommandConfirmer>,
}

impl McpTool {
    /// The registry's view of `tool` of the server behind `connection`.
    pub(crate) fn new(
        connection: Arc<McpConnection>,
        tool: &rmcp::model::Tool,
        confirmer: Arc<dyn CommandConfirmer>,
    ) -> Self {
        let settings = connection.settings();
        let annotations = tool.annotations.as_ref();
        let destructive = annotations.and_then(|a| a.destructive_hint) == Some(true);
        let read_only = annotations.and_then(|a| a.read_only_hint) == Some(true);
        let description = tool
            .description
            .as_deref()
            .unwrap_or("(no description)")
            .to_owned();
        Self {
            name: tool_name(&settings.name, &tool.name),
            remote: tool.name.to_string(),
            description: format!("[MCP server {}] {description}", settings.name),
            schema: Value::Object((*tool.input_schema).clone()),
            read_only,
            confirm: settings.confirm.unwrap_or(destructive),
            connection,
            confirmer,
        }
    }

    /// The tool's name on its server.
    #[must_use]
    pub fn remote_name(&self) -> &str {
        &self.remote
    }

    /// The server's name.
    #[must_use]
    pub fn server(&self) -> &str {
        &self.connection.settings().name
    }
}

/// What the agent's tool registry asks of a tool.
impl McpTool {
    /// The name the model calls it by: `{server}__{tool}`, sanitized.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Name, description and the server's parameter schema.
    #[must_use]
    pub fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: self.schema.clone(),
        }
    }

    /// Read-only when the server marks the tool so; else mutating.
    #[must_use]
    pub fn traits(&self) -> ToolTraits {
        if self.read_only {
            ToolTraits::READ_ONLY
        } else {
            ToolTraits::MUTATING
        }
    }

    /// Calls the tool: its arguments checked against its schema, the person asked first
    /// when it must be confirmed, the call abandoned when the turn is cancelled; a
    /// failure is an outcome whose text says what went wrong.
    pub async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome {
        let arguments = args.as_map().clone();
        if let Err(problem) = check_arguments(&self.schema, &Value::Object(arguments.clone())) {
            return ToolOutcome::error(format!(
                "Error: {}: {problem}; fix the arguments to match the tool's parameters",
                self.name
            ));
        }
        if self.confirm {
            let shown = format!("{} {}", self.name, Value::Object(arguments.clone()));
            let request =
                ConfirmationRequest::new(&shown, context.conversation_id, context.turn_id);
            let allowed = tokio::select! {
                allowed = self.confirmer.confirm(&request, CONFIRM_TIMEOUT) => allowed,
                () = context.cancel.cancelled() => {
                    return ToolOutcome {
                        content: "[cancelled while waiting for the user's confirmation]".to_owned(),
                        status: ToolCallStatus::Cancelled,
                    };
                }
            };
            if !allowed {
                return ToolOutcome {
                    content: format!(
                        "Error: the user did not allow this call of {}; it was not made. \
                         Ask the user how to proceed.",
                        self.name
                    ),
                    status: ToolCallStatus::Denied,
                };
            }
        }
        let called = tokio::select! {
            called = self.connection.call(&self.remote, arguments) => called,
            () = context.cancel.cancelled() => {
                return ToolOutcome {
                    content: "[cancelled; the MCP call was abandoned]".to_owned(),
                    status: ToolCallStatus::Cancelled,
                };
            }
        };
        match called {
            Ok(result) => {
                let (text, failed) = result_text(&result);
                if failed {
                    ToolOutcome::error(format!("Error (from the MCP server): {text}"))
                } else {
                    ToolOutcome {
                        content: text,
                        status: ToolCallStatus::Ok,
                    }
                }
            }
            Err(message) => ToolOutcome::error(format!("Error: {message}")),
        }
    }
}
