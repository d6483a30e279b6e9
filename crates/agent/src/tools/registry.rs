//! The tool registry: the application's `ToolExecutor` over a list of [`Tool`]s.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use async_trait::async_trait;
use smallebot_application::ports::{
    OnDemandTools, ToolContext, ToolEffects, ToolExecutor, ToolInvocation, ToolOutcome, ToolSchema,
};

use smallebot_application::ports::Args;

use super::gate::PermissionGate;
use super::search_tools::{Deferral, deferral};
use super::tool::Tool;

/// Tools that can change while the program runs (an MCP server's, whose list the
/// server may announce as changed).
pub trait ToolSource: Send + Sync {
    /// A number that changes whenever [`ToolSource::tools`] would answer differently.
    fn generation(&self) -> u64;

    /// The tools now.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;

    /// Why the tool `name`, which this source has not, cannot be called now (an MCP
    /// server the user has not connected yet), when the source knows; the call's error
    /// then says it instead of "unknown tool".
    fn unavailable(&self, _name: &str) -> Option<String> {
        None
    }
}

/// Every registered tool, found by name in O(1); schemas are built once, and again
/// only when a [`ToolSource`] says its tools changed. Every call passes its
/// [`PermissionGate`] first (default: no rules, nobody to ask).
#[derive(Default)]
pub struct ToolRegistry {
    fixed: Vec<Arc<dyn Tool>>,
    sources: Vec<Arc<dyn ToolSource>>,
    current: RwLock<Arc<Snapshot>>,
    gate: Arc<PermissionGate>,
    /// Set by [`ToolRegistry::with_tool_search`]: the tools that never wait.
    pinned: Option<Vec<String>>,
}

/// The tools as of the sources' generations.
#[derive(Default)]
struct Snapshot {
    generations: Vec<u64>,
    tools: Vec<Arc<dyn Tool>>,
    schemas: Arc<[ToolSchema]>,
    by_name: HashMap<String, usize>,
    deferral: Option<Deferral>,
}

impl ToolRegistry {
    /// An empty registry.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool (a later tool with the same name replaces the earlier one, in place).
    #[must_use]
    pub fn with(mut self, tool: Arc<dyn Tool>) -> Self {
        match self.fixed.iter().position(|t| t.name() == tool.name()) {
            Some(index) => self.fixed[index] = tool,
            None => self.fixed.push(tool),
        }
        self.rebuild()
    }

    /// Adds tools that may change; they come after the fixed ones.
    #[must_use]
    pub fn with_source(mut self, source: Arc<dyn ToolSource>) -> Self {
        self.sources.push(source);
        self.rebuild()
    }

    /// The same tools, every call passing `gate` (the permission rules and who is
    /// asked) before it runs.
    #[must_use]
    pub fn with_gate(mut self, gate: Arc<PermissionGate>) -> Self {
        self.gate = gate;
        self
    }

    /// The same tools, those that may wait (MCP tools) offered through `SearchTools`
    /// when the pipeline says so, except the `pinned` ones (registry names,
    /// `server__tool`).
    #[must_use]
    pub fn with_tool_search(mut self, pinned: Vec<String>) -> Self {
        self.pinned = Some(pinned);
        self.rebuild()
    }

    /// This registry's tools followed by `other`'s (same names: `other`'s replace),
    /// behind this registry's gate.
    #[must_use]
    pub fn merge(self, other: ToolRegistry) -> Self {
        let (sources, pinned) = (other.sources, other.pinned);
        let mut merged = other.fixed.into_iter().fold(self, ToolRegistry::with);
        merged.pinned = merged.pinned.or(pinned);
        sources.into_iter().fold(merged, ToolRegistry::with_source)
    }

    /// The registered tool names, in registration order.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.snapshot()
            .tools
            .iter()
            .map(|t| t.name().to_owned())
            .collect()
    }

    /// The tool called `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        let snapshot = self.snapshot();
        match snapshot.by_name.get(name) {
            Some(&index) => Some(Arc::clone(&snapshot.tools[index])),
            None => snapshot
                .deferral
                .as_ref()
                .map(|d| &d.search)
                .filter(|search| search.name() == name)
                .cloned(),
        }
    }

    /// With the snapshot built afresh.
    fn rebuild(self) -> Self {
        let snapshot = self.build();
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(snapshot);
        self
    }

    /// The tools now: rebuilt when a source's generation moved.
    fn snapshot(&self) -> Arc<Snapshot> {
        let current = Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner));
        let moved = self
            .sources
            .iter()
            .map(|s| s.generation())
            .ne(current.generations.iter().copied());
        if !moved {
            return current;
        }
        let fresh = Arc::new(self.build());
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::clone(&fresh);
        fresh
    }

    /// The fixed tools and every source's, names unique (later ones replace).
    fn build(&self) -> Snapshot {
        let generations = self.sources.iter().map(|s| s.generation()).collect();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        let all = self
            .fixed
            .iter()
            .cloned()
            .chain(self.sources.iter().flat_map(|s| s.tools()));
        for tool in all {
            match by_name.get(tool.name()) {
                Some(&index) => tools[index] = tool,
                None => {
                    by_name.insert(tool.name().to_owned(), tools.len());
                    tools.push(tool);
                }
            }
        }
        let schemas = tools
            .iter()
            .map(|tool| {
                let mut schema = tool.schema();
                tool.name().clone_into(&mut schema.name);
                schema
            })
            .collect::<Arc<[ToolSchema]>>();
        let deferral = self
            .pinned
            .as_ref()
            .and_then(|pinned| deferral(&tools, &schemas, pinned));
        Snapshot {
            generations,
            tools,
            schemas,
            by_name,
            deferral,
        }
    }
}

#[async_trait]
impl ToolExecutor for ToolRegistry {
    fn schemas(&self) -> Arc<[ToolSchema]> {
        Arc::clone(&self.snapshot().schemas)
    }

    fn on_demand(&self) -> Option<OnDemandTools> {
        self.snapshot().deferral.as_ref().map(|d| d.tools.clone())
    }

    fn effects(&self, invocation: &ToolInvocation) -> Option<ToolEffects> {
        let tool = self.get(&invocation.name)?;
        let written = match Args::parse(&invocation.name, &invocation.arguments) {
            Ok(args) => tool.written_paths(&args),
            Err(_) => Vec::new(),
        };
        Some(ToolEffects::new(tool.traits(), written))
    }

    async fn execute(&self, invocation: &ToolInvocation, context: &ToolContext) -> ToolOutcome {
        let Some(tool) = self.get(&invocation.name) else {
            if let Some(reason) = self
                .sources
                .iter()
                .find_map(|s| s.unavailable(&invocation.name))
            {
                return ToolOutcome::error(format!("Error: {reason}"));
            }
            return ToolOutcome::error(format!(
                "Error: unknown tool '{}'. Available tools: {}.",
                invocation.name,
                self.names().join(", ")
            ));
        };
        let args = match Args::parse(&invocation.name, &invocation.arguments) {
            Ok(args) => args,
            Err(err) => return ToolOutcome::error(err.to_string()),
        };
        let cleared = match self.gate.check(tool.as_ref(), args, context).await {
            Ok(cleared) => cleared,
            Err(refused) => return refused,
        };
        let outcome = tool.call(&cleared.args, context).await;
        self.gate
            .after(
                tool.name(),
                &cleared.args,
                context,
                cleared.context,
                outcome,
            )
            .await
    }
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
