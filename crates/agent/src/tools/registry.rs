//! The tool registry: the application's `ToolExecutor` over a list of [`Tool`]s.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use smallebot_application::ports::{
    ToolContext, ToolEffects, ToolExecutor, ToolInvocation, ToolOutcome, ToolSchema, ToolTraits,
};

use super::args::Args;

/// One tool the model may call. A tool declares its name once ([`Tool::name`]) and
/// what it does ([`Tool::traits`], [`Tool::written_paths`]), so nothing else in the
/// program needs to know tools by name.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The name the model calls it by (PascalCase); [`Tool::schema`] uses it too.
    fn name(&self) -> &str;

    /// Name, description and parameter schema (built once, when registered).
    fn schema(&self) -> ToolSchema;

    /// Whether it mutates anything and how it touches the task list.
    fn traits(&self) -> ToolTraits;

    /// The files a call with `args` writes if it succeeds: absolute, normalized paths
    /// (plan tracking records them on the task in progress). Default: none.
    fn written_paths(&self, args: &Args) -> Vec<String> {
        let _ = args;
        Vec::new()
    }

    /// Runs the call with parsed arguments. Failures are outcomes with status `error`
    /// whose text tells the model what went wrong and what to do.
    async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome;
}

/// Every registered tool, found by name in O(1); schemas are built once.
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Arc<dyn Tool>>,
    schemas: Vec<ToolSchema>,
    by_name: HashMap<String, usize>,
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
        let mut schema = tool.schema();
        tool.name().clone_into(&mut schema.name);
        match self.by_name.get(tool.name()) {
            Some(&index) => {
                self.tools[index] = tool;
                self.schemas[index] = schema;
            }
            None => {
                self.by_name.insert(schema.name.clone(), self.tools.len());
                self.tools.push(tool);
                self.schemas.push(schema);
            }
        }
        self
    }

    /// The registered tool names, in registration order.
    #[must_use]
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// The registered tools, in registration order.
    pub fn into_tools(self) -> impl Iterator<Item = Arc<dyn Tool>> {
        self.tools.into_iter()
    }

    /// The tool called `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.by_name.get(name).map(|&index| &self.tools[index])
    }
}

#[async_trait]
impl ToolExecutor for ToolRegistry {
    fn schemas(&self) -> &[ToolSchema] {
        &self.schemas
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use smallebot_application::ports::PlanAccess;

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
            args.string("path")
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
        let names: Vec<_> = registry.schemas().iter().map(|s| s.name.as_str()).collect();
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
}
