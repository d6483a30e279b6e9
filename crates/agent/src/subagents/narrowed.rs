//! [`NarrowedTools`]: the parent's tools as a sub-agent's definition narrows them.

use std::collections::HashSet;
use std::sync::Arc;

use async_trait::async_trait;
use smallebot_application::ports::{
    OnDemandTools, ToolContext, ToolEffects, ToolExecutor, ToolInvocation, ToolOutcome, ToolSchema,
};
use smallebot_core::agents::{AgentDefinition, AgentSandbox, AgentTools};

use crate::tools::SearchTools;

/// The tools of `inner` a sub-agent may use: never those named `never` (`Delegate`: a
/// sub-agent does not delegate further), only the names its `tools` lists (when it lists any), and under
/// `sandbox: read-only` none that may change anything. It only ever takes tools away.
pub struct NarrowedTools {
    inner: Arc<dyn ToolExecutor>,
    never: Vec<String>,
    only: Option<HashSet<String>>,
    read_only: bool,
}

impl NarrowedTools {
    /// `inner` narrowed by `definition`, without the tools named `never`.
    #[must_use]
    pub fn new(inner: Arc<dyn ToolExecutor>, definition: &AgentDefinition, never: &[&str]) -> Self {
        Self {
            inner,
            never: never.iter().map(|n| (*n).to_owned()).collect(),
            only: match &definition.tools {
                AgentTools::Inherit => None,
                AgentTools::Only(names) => Some(names.iter().cloned().collect()),
            },
            read_only: definition.sandbox == Some(AgentSandbox::ReadOnly),
        }
    }

    /// Whether the tool `name` is one of this sub-agent's.
    fn allows(&self, name: &str) -> bool {
        if self.never.iter().any(|n| n == name)
            || self.only.as_ref().is_some_and(|only| !only.contains(name))
        {
            return false;
        }
        !self.read_only || !self.mutating(name)
    }

    /// Whether `name` says it may change anything (asked with empty arguments).
    fn mutating(&self, name: &str) -> bool {
        let probe = ToolInvocation {
            call_id: String::new(),
            name: name.to_owned(),
            arguments: "{}".to_owned(),
        };
        self.inner
            .effects(&probe)
            .is_none_or(|effects| effects.traits.mutating)
    }

    /// The names this sub-agent may call.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.schemas().iter().map(|s| s.name.clone()).collect()
    }
}

#[async_trait]
impl ToolExecutor for NarrowedTools {
    fn schemas(&self) -> Arc<[ToolSchema]> {
        self.inner
            .schemas()
            .iter()
            .filter(|schema| self.allows(&schema.name))
            .cloned()
            .collect()
    }

    /// The parent's tools on demand, narrowed: `None` (every tool of this agent sent)
    /// when none of its tools waits or it may not search.
    fn on_demand(&self) -> Option<OnDemandTools> {
        let inner = self.inner.on_demand()?;
        let narrowed = |schemas: &[ToolSchema]| -> Arc<[ToolSchema]> {
            schemas
                .iter()
                .filter(|schema| self.allows(&schema.name))
                .cloned()
                .collect()
        };
        let deferrable = narrowed(&inner.deferrable);
        if deferrable.is_empty() || !self.allows(SearchTools::NAME) {
            return None;
        }
        Some(OnDemandTools {
            always: narrowed(&inner.always),
            deferrable,
        })
    }

    fn effects(&self, invocation: &ToolInvocation) -> Option<ToolEffects> {
        self.allows(&invocation.name)
            .then(|| self.inner.effects(invocation))
            .flatten()
    }

    async fn execute(&self, invocation: &ToolInvocation, context: &ToolContext) -> ToolOutcome {
        if !self.allows(&invocation.name) {
            return ToolOutcome::error(format!(
                "Error: '{}' is not one of this agent's tools. Available tools: {}.",
                invocation.name,
                self.names().join(", ")
            ));
        }
        self.inner.execute(invocation, context).await
    }
}
