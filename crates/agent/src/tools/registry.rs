//! The tool registry: the application's `ToolExecutor` over a list of [`Tool`]s.

use std::sync::Arc;

use async_trait::async_trait;
use smallebot_application::ports::{
    ToolContext, ToolExecutor, ToolInvocation, ToolOutcome, ToolSchema,
};

use super::args::Args;

/// One tool the model may call.
#[async_trait]
pub trait Tool: Send + Sync {
    /// Name, description and parameter schema.
    fn schema(&self) -> ToolSchema;

    /// Runs the call with parsed arguments. Failures are outcomes with status `error`
    /// whose text tells the model what went wrong and what to do.
    async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome;
}

/// Every registered tool, by name.
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
}

impl ToolRegistry {
    /// An empty registry.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool (a later tool with the same name replaces the earlier one).
    #[must_use]
    pub fn with(mut self, tool: Arc<dyn Tool>) -> Self {
        let name = tool.schema().name;
        self.tools.retain(|t| t.schema().name != name);
        self.tools.push(tool);
        self
    }

    /// The registered tool names.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.schema().name).collect()
    }
}

#[async_trait]
impl ToolExecutor for ToolRegistry {
    fn schemas(&self) -> Vec<ToolSchema> {
        self.tools.iter().map(|t| t.schema()).collect()
    }

    async fn execute(&self, invocation: &ToolInvocation, context: &ToolContext) -> ToolOutcome {
        let Some(tool) = self
            .tools
            .iter()
            .find(|t| t.schema().name == invocation.name)
        else {
            return ToolOutcome::error(format!(
                "Error: unknown tool '{}'. Available tools: {}.",
                invocation.name,
                self.names().join(", ")
            ));
        };
        match Args::parse(&invocation.name, &invocation.arguments) {
            Ok(args) => tool.call(&args, context).await,
            Err(err) => ToolOutcome::error(err.to_string()),
        }
    }
}
