//! Sub-agents in the assembly: the agent folders and `maxParallelAgents`, and the
//! `Delegate` tool added to the parent's tools over a runner of the parent's parts.

use std::path::PathBuf;
use std::sync::Arc;

use smallebot_application::ports::ToolExecutor;

use super::AgentAssembly;
use crate::agents::AgentFolders;
use crate::subagents::{SubAgentParts, SubAgentRunner};
use crate::tools::{Delegate, ToolRegistry};

impl AgentAssembly {
    /// Offers the `Delegate` tool over the agent definitions of `folders`, running at
    /// most `max_parallel` sub-agents at once (an assembly from a home has it, with the
    /// home's `agents/` and agent.json's `maxParallelAgents`).
    #[must_use]
    pub fn sub_agents(mut self, folders: AgentFolders, max_parallel: usize) -> Self {
        self.sub_agents = Some((folders, max_parallel));
        self
    }

    /// A user's own agents folder on top of the shared one (multi-user `serve`:
    /// `<home>/users/<name>/agents`). No effect without sub-agents.
    #[must_use]
    pub fn user_agents(mut self, dir: PathBuf) -> Self {
        if let Some((folders, _)) = self.sub_agents.as_mut() {
            folders.user = Some(dir);
        }
        self
    }
}

/// `tools` as the parent's executor: with `Delegate` over a runner of `parts()` when
/// sub-agents are configured, the runner then given the finished tools.
pub(super) fn with_delegate(
    tools: ToolRegistry,
    sub_agents: Option<(AgentFolders, usize)>,
    parts: impl FnOnce() -> SubAgentParts,
) -> Arc<dyn ToolExecutor> {
    let Some((folders, max_parallel)) = sub_agents else {
        return Arc::new(tools);
    };
    let runner = Arc::new(SubAgentRunner::new(
        parts(),
        folders,
        max_parallel,
        vec![Delegate::NAME],
    ));
    let tools: Arc<dyn ToolExecutor> =
        Arc::new(tools.with(Arc::new(Delegate::new(Arc::clone(&runner)))));
    runner.set_tools(&tools);
    tools
}
