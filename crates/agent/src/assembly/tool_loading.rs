//! [`AgentAssembly::pinned_tools`]: the MCP tools always sent, even when the others wait
//! for `SearchTools` (agent.json `mcp.pinnedTools`; when they wait is the pipeline's
//! `tool_loading`, [`AgentAssembly::pipeline`]).

use super::AgentAssembly;

impl AgentAssembly {
    /// The MCP tools sent with every request, named as the registry names them
    /// (`server__tool`), even when the others wait for `SearchTools`.
    #[must_use]
    pub fn pinned_tools(mut self, pinned: Vec<String>) -> Self {
        self.pinned_tools = pinned;
        self
    }
}
