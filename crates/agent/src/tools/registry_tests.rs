//! Unit tests of the tool registry: lookup by name, replacement, sources and what
//! they say about tools they lack, effects.
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
