//! The registry's tools on demand: with `with_tool_search`, deferrable tools (MCP
//! tools) not pinned are offered apart, `SearchTools` searches them and records what
//! it found in the turn's loaded tools; a sub-agent's narrowed tools narrow both lists.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use async_trait::async_trait;
use smallebot_agent::subagents::NarrowedTools;
use smallebot_agent::tools::{Args, SearchTools, Tool, ToolRegistry};
use smallebot_application::ports::{
    ToolContext, ToolExecutor, ToolInvocation, ToolOutcome, ToolSchema, ToolTraits,
};
use smallebot_core::agents::{AgentDefinition, AgentTools};
use smallebot_core::entities::ToolCallStatus;

struct Fake {
    name: &'static str,
    description: &'static str,
    deferrable: bool,
}

#[async_trait]
impl Tool for Fake {
    fn name(&self) -> &str {
        self.name
    }
    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: self.name.to_owned(),
            description: self.description.to_owned(),
            parameters: serde_json::json!({"type": "object"}),
        }
    }
    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }
    fn deferrable(&self) -> bool {
        self.deferrable
    }
    async fn call(&self, _args: &Args, _context: &ToolContext) -> ToolOutcome {
        ToolOutcome::ok(self.name)
    }
}

fn registry(pinned: Option<&[&str]>) -> ToolRegistry {
    let tool = |name, description, deferrable| {
        Arc::new(Fake {
            name,
            description,
            deferrable,
        }) as Arc<dyn Tool>
    };
    let registry = ToolRegistry::new()
        .with(tool("ReadFile", "Read a file", false))
        .with(tool("files__read", "Read a remote file", true))
        .with(tool("weather__forecast", "The weather forecast", true))
        .with(tool("git__log", "The commit log", true));
    match pinned {
        Some(pinned) => registry.with_tool_search(pinned.iter().map(|p| (*p).to_owned()).collect()),
        None => registry,
    }
}

fn names(schemas: &[ToolSchema]) -> Vec<&str> {
    schemas.iter().map(|s| s.name.as_str()).collect()
}

fn call(name: &str, arguments: &str) -> ToolInvocation {
    ToolInvocation {
        call_id: "c".into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[tokio::test]
async fn deferrable_tools_not_pinned_wait_and_the_search_loads_them() {
    assert!(registry(None).on_demand().is_none());
    let registry = registry(Some(&["git__log"]));
    let on_demand = registry.on_demand().unwrap();
    assert_eq!(
        names(&on_demand.always),
        ["ReadFile", "git__log", SearchTools::NAME]
    );
    assert_eq!(
        names(&on_demand.deferrable),
        ["files__read", "weather__forecast"]
    );
    // Every tool is still in the full list; the search tool only in the split one.
    assert_eq!(registry.schemas().len(), 4);
    assert!(!registry.names().contains(&SearchTools::NAME.to_owned()));
    let context = ToolContext::outside_conversation();
    let found = registry
        .execute(&call(SearchTools::NAME, r#"{"query":"weather"}"#), &context)
        .await;
    assert_eq!(found.status, ToolCallStatus::Ok);
    assert!(
        found.content.contains("## weather__forecast"),
        "{}",
        found.content
    );
    assert_eq!(context.loaded_tools.names(), ["weather__forecast"]);
    assert_eq!(
        names(&on_demand.with_loaded(&context.loaded_tools.names())),
        [
            "ReadFile",
            "git__log",
            SearchTools::NAME,
            "weather__forecast"
        ]
    );
    let nothing = registry
        .execute(&call(SearchTools::NAME, r#"{"query":"zebra"}"#), &context)
        .await;
    assert!(
        nothing.content.starts_with("No tool matches 'zebra'"),
        "{}",
        nothing.content
    );
    // Pinned, every deferrable tool: none waits.
    let all_pinned = self::registry(Some(&["files__read", "weather__forecast", "git__log"]));
    assert!(all_pinned.on_demand().is_none());
}

#[test]
fn a_sub_agent_waits_only_for_its_own_tools_and_only_if_it_may_search() {
    let parent: Arc<dyn ToolExecutor> = Arc::new(registry(Some(&[])));
    let definition = |tools| AgentDefinition {
        tools,
        ..AgentDefinition::general()
    };
    let only = |list: &[&str]| AgentTools::Only(list.iter().map(|n| (*n).to_owned()).collect());
    let inherit = NarrowedTools::new(Arc::clone(&parent), &definition(AgentTools::Inherit), &[]);
    assert_eq!(names(&inherit.on_demand().unwrap().deferrable).len(), 3);
    let listed = NarrowedTools::new(
        Arc::clone(&parent),
        &definition(only(&["ReadFile", "git__log", SearchTools::NAME])),
        &[],
    );
    let narrowed = listed.on_demand().unwrap();
    assert_eq!(names(&narrowed.always), ["ReadFile", SearchTools::NAME]);
    assert_eq!(names(&narrowed.deferrable), ["git__log"]);
    // Without SearchTools among its tools, its own tools are all sent.
    let no_search = NarrowedTools::new(parent, &definition(only(&["git__log"])), &[]);
    assert!(no_search.on_demand().is_none());
}
