//! A sub-agent's tools: the parent's, narrowed by its definition and never widened —
//! never `Delegate`, only the names `tools` lists, nothing that may change anything
//! under `sandbox: read-only`; a call outside them is refused, not run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use smallebot_agent::subagents::NarrowedTools;
use smallebot_agent::tools::{Args, Tool, ToolRegistry};
use smallebot_application::ports::{
    ToolContext, ToolExecutor, ToolInvocation, ToolOutcome, ToolSchema, ToolTraits,
};
use smallebot_core::agents::{AgentDefinition, AgentSandbox, AgentTools};
use smallebot_core::entities::ToolCallStatus;

struct Fake {
    name: &'static str,
    traits: ToolTraits,
    calls: Arc<AtomicUsize>,
}

#[async_trait]
impl Tool for Fake {
    fn name(&self) -> &str {
        self.name
    }
    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: self.name.to_owned(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object"}),
        }
    }
    fn traits(&self) -> ToolTraits {
        self.traits
    }
    async fn call(&self, _args: &Args, _context: &ToolContext) -> ToolOutcome {
        self.calls.fetch_add(1, Ordering::SeqCst);
        ToolOutcome::ok(self.name)
    }
}

fn parent(calls: &Arc<AtomicUsize>) -> Arc<dyn ToolExecutor> {
    let fake = |name, traits| {
        Arc::new(Fake {
            name,
            traits,
            calls: Arc::clone(calls),
        }) as Arc<dyn Tool>
    };
    Arc::new(
        ToolRegistry::new()
            .with(fake("ReadFile", ToolTraits::READ_ONLY))
            .with(fake("WriteFile", ToolTraits::MUTATING))
            .with(fake("ExecuteCommand", ToolTraits::MUTATING))
            .with(fake("Delegate", ToolTraits::MUTATING)),
    )
}

fn definition(tools: AgentTools, sandbox: Option<AgentSandbox>) -> AgentDefinition {
    AgentDefinition {
        tools,
        sandbox,
        ..AgentDefinition::general()
    }
}

fn call(name: &str) -> ToolInvocation {
    ToolInvocation {
        call_id: "c1".into(),
        name: name.into(),
        arguments: "{}".into(),
    }
}

#[tokio::test]
async fn a_definition_narrows_the_parents_tools_and_never_widens_them() {
    let calls = Arc::new(AtomicUsize::new(0));
    let only = |names: &[&str]| AgentTools::Only(names.iter().map(|n| (*n).to_owned()).collect());
    let cases = [
        (
            definition(AgentTools::Inherit, None),
            vec!["ReadFile", "WriteFile", "ExecuteCommand"],
        ),
        (
            definition(only(&["ReadFile", "Delegate", "Unknown"]), None),
            vec!["ReadFile"],
        ),
        (
            definition(AgentTools::Inherit, Some(AgentSandbox::ReadOnly)),
            vec!["ReadFile"],
        ),
        (
            definition(only(&["WriteFile"]), Some(AgentSandbox::WorkspaceWrite)),
            vec!["WriteFile"],
        ),
        (definition(only(&[]), None), vec![]),
    ];
    for (definition, expected) in cases {
        let narrowed = NarrowedTools::new(parent(&calls), &definition, &["Delegate"]);
        let names: Vec<String> = narrowed.schemas().iter().map(|s| s.name.clone()).collect();
        assert_eq!(names, expected, "{definition:?}");
        for name in ["ReadFile", "WriteFile", "ExecuteCommand", "Delegate"] {
            assert_eq!(
                narrowed.effects(&call(name)).is_some(),
                expected.contains(&name),
                "{name}"
            );
        }
    }
    let read_only = NarrowedTools::new(
        parent(&calls),
        &definition(AgentTools::Inherit, Some(AgentSandbox::ReadOnly)),
        &["Delegate"],
    );
    let context = ToolContext::outside_conversation();
    let refused = read_only.execute(&call("WriteFile"), &context).await;
    assert_eq!(refused.status, ToolCallStatus::Error);
    assert!(
        refused
            .content
            .contains("'WriteFile' is not one of this agent's tools"),
        "{}",
        refused.content
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    let allowed = read_only.execute(&call("ReadFile"), &context).await;
    assert_eq!(allowed.content, "ReadFile");
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}
