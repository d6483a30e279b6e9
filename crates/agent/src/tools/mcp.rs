//! The MCP client's servers and tools (`smallebot-mcp`) as a source of the registry:
//! each server's tool is a [`Tool`] named `{server}__{tool}` (`mcp__{server}__{tool}` in
//! permission rules), and the registry builds
//! its list again whenever the servers' tools change; `ReadMcpResource` joins them when
//! a server offers resources.

use std::sync::Arc;

use async_trait::async_trait;
use smallebot_application::ports::{Args, ToolContext, ToolOutcome, ToolSchema, ToolTraits};
use smallebot_mcp::{McpServers, McpTool};

use smallebot_core::rules::permission::{CallSubject, MCP_PREFIX};

use super::call_view::{AskFirst, CallView};
use super::mcp_resource::ReadMcpResource;
use super::registry::ToolSource;
use super::tool::Tool;

/// The tools of the MCP servers, for [`ToolRegistry::with_source`](super::ToolRegistry::with_source).
pub struct McpToolSource(Arc<McpServers>);

impl McpToolSource {
    /// The tools of `servers`, as they are now and after every change.
    #[must_use]
    pub fn new(servers: Arc<McpServers>) -> Arc<Self> {
        Arc::new(Self(servers))
    }
}

impl ToolSource for McpToolSource {
    fn generation(&self) -> u64 {
        self.0.generation()
    }

    /// The servers' tools, and `ReadMcpResource` when a server offers resources.
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let mut tools: Vec<Arc<dyn Tool>> = self
            .0
            .mcp_tools()
            .into_iter()
            .map(|tool| Arc::new(ServerTool(tool)) as Arc<dyn Tool>)
            .collect();
        if let Some(read) = ReadMcpResource::new(Arc::clone(&self.0)) {
            tools.push(Arc::new(read));
        }
        tools
    }

    /// A tool of a per-user server the user has not connected: "connect first".
    fn unavailable(&self, name: &str) -> Option<String> {
        self.0.unavailable(name)
    }
}

/// One tool of an MCP server, as the registry calls it.
struct ServerTool(Arc<McpTool>);

#[async_trait]
impl Tool for ServerTool {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn schema(&self) -> ToolSchema {
        self.0.schema()
    }

    fn traits(&self) -> ToolTraits {
        self.0.traits()
    }

    /// Seen by the rules as `mcp__<server>__<tool>`; asked about unless a rule allows
    /// it when the tool must be confirmed (destructive, or mcp.json's `confirm`).
    fn permission(&self, _args: &Args, _context: &ToolContext) -> Result<CallView, ToolOutcome> {
        let subject = CallSubject::tool(&format!("{MCP_PREFIX}{}", self.0.name()));
        Ok(CallView::new(subject).ask_first(if self.0.asks_first() {
            AskFirst::UnlessARuleAllows
        } else {
            AskFirst::WhenRulesSay
        }))
    }

    /// An MCP tool may wait for `SearchTools` when there are many.
    fn deferrable(&self) -> bool {
        true
    }

    async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome {
        self.0.call(args, context).await
    }
}
