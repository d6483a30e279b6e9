//! [`McpTool`]: one tool of an MCP server in the registry, called through the same path
//! as the built-in tools.

use std::sync::Arc;

use serde_json::Value;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolSchema, ToolTraits};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::rules::elicitation::outcome_note;

use super::connection::McpConnection;
use super::content::result_text;
use super::names::tool_name;
use super::schema::check_arguments;
use smallebot_application::ports::Args;

/// An MCP tool as the model sees it: `{server}__{tool}`.
pub struct McpTool {
    connection: Arc<McpConnection>,
    name: String,
    remote: String,
    description: String,
    schema: Value,
    read_only: bool,
    confirm: bool,
}

impl McpTool {
    /// The registry's view of `tool` of the server behind `connection`.
    pub(crate) fn new(connection: Arc<McpConnection>, tool: &rmcp::model::Tool) -> Self {
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
        }
    }

    /// The tool's name on its server.
    #[must_use]
    pub fn remote_name(&self) -> &str {
        &self.remote
    }

    /// Whether the person is asked before each call unless a permission rule allows
    /// it: mcp.json's `confirm` for its server, else whether the server marks the tool
    /// destructive (`destructiveHint`). The agent's permission gate asks.
    #[must_use]
    pub fn asks_first(&self) -> bool {
        self.confirm
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

    /// Calls the tool: its arguments checked against its schema, the call abandoned
    /// when the turn is cancelled; a failure is an outcome whose text says what went
    /// wrong. Whether it may run at all (and asking the person) is decided before, by
    /// the caller ([`McpTool::asks_first`]).
    pub async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome {
        let arguments = args.as_map().clone();
        if let Err(problem) = check_arguments(&self.schema, &Value::Object(arguments.clone())) {
            return ToolOutcome::error(format!(
                "Error: {}: {problem}; fix the arguments to match the tool's parameters",
                self.name
            ));
        }
        let running = self.connection.asking().enter(context);
        let called = tokio::select! {
            called = self.connection.call(&self.remote, arguments, &running.call.clock) => called,
            () = context.cancel.cancelled() => {
                return ToolOutcome {
                    content: "[cancelled; the MCP call was abandoned]".to_owned(),
                    status: ToolCallStatus::Cancelled,
                };
            }
        };
        drop(running);
        let mut outcome = outcome_of(called);
        for asked in context.elicitations.all() {
            outcome.content.push('\n');
            outcome.content.push_str(&outcome_note(&asked));
        }
        outcome
    }
}

/// The outcome of a call that answered `called`.
fn outcome_of(called: Result<Value, String>) -> ToolOutcome {
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
