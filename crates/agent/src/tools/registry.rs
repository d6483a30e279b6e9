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
mod tests {
    use super::*;
    use serde_json::json;
    use smallebot_application::ports::{PlanAccess, ToolTraits};

    struct Fixed {
        name: &'static str,
        answer: &'static str,
    }

    #[async_trait]
    impl Tool for Fixed {
        fn name(&self) -> &str {
            self.name
        }
        fn schema(&self) -> ToolSchema {
            ToolSchema {
                name: "ignored: the registry uses name()".into(),
                description: self.answer.into(),
                parameters: json!({"type": "object"}),
            }
        }
        fn traits(&self) -> ToolTraits {
            ToolTraits::plan(PlanAccess::Reads)
        }
        fn written_paths(&self, args: &Args) -> Vec<String> {
            args.as_map()
                .get("path")
                .and_then(|p| p.as_str())
                .map(|p| vec![p.to_owned()])
                .unwrap_or_default()
        }
        async fn call(&self, _args: &Args, _context: &ToolContext) -> ToolOutcome {
            ToolOutcome::ok(self.answer)
        }
    }

    fn invocation(name: &str, arguments: &str) -> ToolInvocation {
        ToolInvocation {
            call_id: "c".into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    #[tokio::test]
    async fn finds_tools_by_name_and_a_later_one_replaces_in_place() {
        let registry = ToolRegistry::new()
            .with(Arc::new(Fixed {
                name: "A",
                answer: "first",
            }))
            .with(Arc::new(Fixed {
                name: "B",
                answer: "b",
            }))
            .with(Arc::new(Fixed {
                name: "A",
                answer: "second",
            }));
        assert_eq!(registry.names(), ["A", "B"]);
        let schemas = registry.schemas();
        let names: Vec<_> = schemas.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["A", "B"]);
        assert_eq!(registry.schemas()[0].description, "second");
        let context = ToolContext::outside_conversation();
        let outcome = registry.execute(&invocation("A", "{}"), &context).await;
        assert_eq!(outcome.content, "second");
        let unknown = registry.execute(&invocation("C", "{}"), &context).await;
        assert_eq!(
            unknown.content,
            "Error: unknown tool 'C'. Available tools: A, B."
        );
    }

    /// A source with no tools that knows why `srv__*` cannot be called.
    struct Waiting;

    impl ToolSource for Waiting {
        fn generation(&self) -> u64 {
            0
        }
        fn tools(&self) -> Vec<Arc<dyn Tool>> {
            Vec::new()
        }
        fn unavailable(&self, name: &str) -> Option<String> {
            name.starts_with("srv__")
                .then(|| "connect 'srv' first".to_owned())
        }
    }

    #[tokio::test]
    async fn a_source_says_why_a_tool_it_lacks_cannot_be_called() {
        let registry = ToolRegistry::new()
            .with(Arc::new(Fixed {
                name: "A",
                answer: "a",
            }))
            .with_source(Arc::new(Waiting));
        let context = ToolContext::outside_conversation();
        let waiting = registry
            .execute(&invocation("srv__echo", "{}"), &context)
            .await;
        assert_eq!(waiting.content, "Error: connect 'srv' first");
        let unknown = registry.execute(&invocation("other", "{}"), &context).await;
        assert_eq!(
            unknown.content,
            "Error: unknown tool 'other'. Available tools: A."
        );
    }

    #[test]
    fn effects_come_from_the_tool() {
        let registry = ToolRegistry::new().with(Arc::new(Fixed {
            name: "A",
            answer: "",
        }));
        let effects = registry
            .effects(&invocation("A", r#"{"path":"/ws/x"}"#))
            .unwrap();
        assert_eq!(effects.written_paths, ["/ws/x"]);
        assert_eq!(effects.traits.plan, PlanAccess::Reads);
        assert!(
            registry
                .effects(&invocation("A", "{bad"))
                .unwrap()
                .written_paths
                .is_empty()
        );
        assert!(registry.effects(&invocation("Z", "{}")).is_none());
    }

    /// Tools that change when told to.
    #[derive(Default)]
    struct Changing {
        generation: std::sync::atomic::AtomicU64,
        tools: std::sync::Mutex<Vec<Arc<dyn Tool>>>,
    }

    impl ToolSource for Changing {
        fn generation(&self) -> u64 {
            self.generation.load(std::sync::atomic::Ordering::SeqCst)
        }

        fn tools(&self) -> Vec<Arc<dyn Tool>> {
            self.tools.lock().unwrap().clone()
        }
    }

    #[tokio::test]
    async fn a_source_s_tools_follow_its_generation_and_survive_a_merge() {
        let source = Arc::new(Changing::default());
        let fixed = ToolRegistry::new().with(Arc::new(Fixed {
            name: "A",
            answer: "a",
        }));
        let registry = fixed.merge(ToolRegistry::new().with_source(source.clone()));
        assert_eq!(registry.names(), ["A"]);
        source.tools.lock().unwrap().push(Arc::new(Fixed {
            name: "S",
            answer: "s",
        }));
        // Not announced yet: the snapshot stays.
        assert_eq!(registry.schemas().len(), 1);
        source
            .generation
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(registry.names(), ["A", "S"]);
        let context = ToolContext::outside_conversation();
        let outcome = registry.execute(&invocation("S", "{}"), &context).await;
        assert_eq!(outcome.content, "s");
        source.tools.lock().unwrap().clear();
        source
            .generation
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        assert_eq!(registry.schemas().len(), 1);
    }
}
