//! Which tools a request carries: all of them, or — when the tools that may wait
//! (MCP tools not pinned) would crowd the context window — the others, the search
//! tool and what this turn's searches loaded (agent.json `mcp`, rule
//! [`defers`](smallebot_core::rules::tool_search::defers)).

use std::sync::Arc;

use smallebot_core::entities::Conversation;
use smallebot_core::rules::tool_search::defers;

use super::context::PipelineContext;
use crate::ports::ToolSchema;

impl PipelineContext {
    /// The schemas a request of `conversation` carries, the tools in `loaded` (found by
    /// this turn's searches) included when the deferrable tools wait.
    pub(crate) fn offered_tools(
        &self,
        conversation: &Conversation,
        loaded: &[String],
    ) -> Arc<[ToolSchema]> {
        let all = self.tools.schemas();
        let Some(on_demand) = self.tools.on_demand() else {
            return all;
        };
        let deferrable = &on_demand.deferrable;
        let waits = defers(
            self.settings.tool_loading,
            deferrable.len(),
            self.assembler.schema_estimate(deferrable),
            self.assembler.window_of(conversation),
        );
        if waits {
            on_demand.with_loaded(loaded)
        } else {
            all
        }
    }
}
