//! Issue 46, tools on demand: with 200 MCP tools (the testkit's many-tools server over
//! streamable HTTP) the first request carries `SearchTools` and the pinned tools only
//! besides the built-in ones; the model searches, then calls a deferred tool in the
//! next step and it runs (through the permission gate); the next turn starts without
//! it again; the context figure shows the saving. Under the threshold every tool is
//! sent and `SearchTools` is not.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use smallebot_agent::config::{McpServerSettings, McpSettings, McpTransport};
use smallebot_agent::tools::{
    McpToolSource, PermissionGate, SearchTools, ToolRegistry, permission_argument,
};
use smallebot_application::ports::{DenyAll, ToolContext, ToolExecutor, ToolInvocation};
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::{HistoryRow, ToolCallStatus, TurnStatus};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::permission::{PermissionRule, PermissionRules};
use smallebot_core::rules::tool_search::ToolLoading;
use smallebot_mcp::McpServers;
use smallebot_testkit::mcp_many::serve_many_http;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, ToolCallSpec};
use tokio_util::sync::CancellationToken;

/// The MCP servers: `many`, 200 tools over HTTP.
async fn many_tools(cancel: &CancellationToken) -> Arc<McpServers> {
    let addr = serve_many_http(200, cancel.clone()).await.unwrap();
    let server = McpServerSettings {
        name: "many".to_owned(),
        transport: McpTransport::Http {
            url: format!("http://{addr}/mcp"),
            headers: BTreeMap::new(),
            auth: smallebot_mcp::McpAuth::None,
        },
        enabled: true,
        startup_timeout: Duration::from_secs(20),
        tool_timeout: Duration::from_secs(20),
        confirm: None,
        max_message_bytes: 32 * 1024 * 1024,
        elicitation_timeout: std::time::Duration::from_secs(300),
        sampling: false,
    };
    let mcp = McpServers::start(
        &McpSettings {
            servers: vec![server],
        },
        None,
    )
    .await
    .unwrap();
    assert!(mcp.warnings().is_empty(), "{:?}", mcp.warnings());
    assert_eq!(mcp.mcp_tools().len(), 200);
    Arc::new(mcp)
}

/// The names of the tools a request carried.
fn tool_names(request: &RecordedRequest) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// The MCP tools among `names`.
fn mcp_names(names: &[String]) -> Vec<&str> {
    names
        .iter()
        .filter(|n| n.starts_with("many__"))
        .map(String::as_str)
        .collect()
}

/// The first context figure of the events.
fn first_usage(events: &[EventKind]) -> u64 {
    events
        .iter()
        .find_map(|e| match e {
            EventKind::ContextUsage { used, .. } => Some(*used),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn two_hundred_tools_are_found_and_called_in_two_steps() {
    let cancel = CancellationToken::new();
    let mcp = many_tools(&cancel).await;
    let mut h = harness(Options {
        sources: vec![McpToolSource::new(Arc::clone(&mcp))],
        pinned_tools: vec!["many__tool_007".to_owned()],
        ..Options::default()
    })
    .await;
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "call_1",
            SearchTools::NAME,
            r#"{"query":"operation 123 mail"}"#,
        )]));
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "call_2",
            "many__tool_123",
            r#"{"value":"x"}"#,
        )]));
    h.server.push(ScriptedResponse::text("done"));
    h.server.push(ScriptedResponse::text("second turn"));
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "find and run it", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed, "{:?}", outcome.error);
    let requests = h.server.turn_requests();
    let first = tool_names(&requests[0]);
    assert!(first.contains(&SearchTools::NAME.to_owned()), "{first:?}");
    assert_eq!(mcp_names(&first), ["many__tool_007"]);
    assert!(
        first.contains(&"Echo".to_owned()),
        "built-in tools stay: {first:?}"
    );
    // The search's matches are sent from the next step on.
    let second = tool_names(&requests[1]);
    assert!(mcp_names(&second).contains(&"many__tool_123"), "{second:?}");
    assert!(mcp_names(&second).len() <= 1 + SearchTools::DEFAULT_RESULTS);
    let rows = h.rows(&c).await;
    let calls: Vec<_> = rows
        .iter()
        .filter_map(|r| match r {
            HistoryRow::ToolCall(call) => Some(call),
            _ => None,
        })
        .collect();
    assert_eq!(calls[0].status, ToolCallStatus::Ok);
    let found = calls[0].result.as_deref().unwrap();
    assert!(found.contains("## many__tool_123"), "{found}");
    assert!(
        found.contains("\"value\""),
        "the schema is returned: {found}"
    );
    assert_eq!(calls[1].tool_name, "many__tool_123");
    assert_eq!(
        (calls[1].status, calls[1].result.as_deref()),
        (
            ToolCallStatus::Ok,
            Some(r#"tool_123 ran with {"value":"x"}"#)
        )
    );
    // A new turn starts with the search tool and the pinned tool again.
    let deferred_usage = first_usage(&h.drain_events());
    h.service
        .send(c.id, "again", SendOptions::default())
        .await
        .unwrap();
    let requests = h.server.turn_requests();
    let next_turn = tool_names(requests.last().unwrap());
    assert_eq!(mcp_names(&next_turn), ["many__tool_007"]);

    // Under the threshold every tool is sent, and no search tool; the context figure
    // of the deferred turn was the smaller by the tools left out.
    let mut all = harness(Options {
        sources: vec![McpToolSource::new(Arc::clone(&mcp))],
        tool_loading: ToolLoading {
            max_share: 1.0,
            max_tools: 1_000,
        },
        ..Options::default()
    })
    .await;
    all.server.push(ScriptedResponse::text("all here"));
    let c = all.conversation().await;
    all.service
        .send(c.id, "find and run it", SendOptions::default())
        .await
        .unwrap();
    let names = tool_names(&all.server.turn_requests()[0]);
    assert_eq!(mcp_names(&names).len(), 200);
    assert!(!names.contains(&SearchTools::NAME.to_owned()));
    let full_usage = first_usage(&all.drain_events());
    assert!(
        deferred_usage * 3 < full_usage,
        "deferred {deferred_usage} vs all {full_usage}"
    );
    mcp.shutdown().await;
    cancel.cancel();
}

#[tokio::test]
async fn a_deferred_tool_passes_the_permission_gate() {
    let cancel = CancellationToken::new();
    let mcp = many_tools(&cancel).await;
    let rule = PermissionRule::parse("mcp__many__tool_050", &permission_argument).unwrap();
    let rules = PermissionRules {
        deny: vec![rule],
        ..PermissionRules::default()
    };
    let registry = ToolRegistry::new()
        .with_source(McpToolSource::new(Arc::clone(&mcp)))
        .with_tool_search(Vec::new())
        .with_gate(Arc::new(PermissionGate::new(rules, Arc::new(DenyAll))));
    let on_demand = registry.on_demand().unwrap();
    assert_eq!(on_demand.deferrable.len(), 200);
    assert_eq!(on_demand.always.len(), 1);
    let context = ToolContext::in_turn(
        ConversationId::new(),
        TurnId::new(),
        CancellationToken::new(),
    );
    let call = |name: &str, arguments: &str| ToolInvocation {
        call_id: "c".into(),
        name: name.into(),
        arguments: arguments.into(),
    };
    let search = registry
        .execute(
            &call(SearchTools::NAME, r#"{"query":"tool_050"}"#),
            &context,
        )
        .await;
    assert_eq!(search.status, ToolCallStatus::Ok, "{}", search.content);
    assert_eq!(context.loaded_tools.names()[0], "many__tool_050");
    let denied = registry
        .execute(&call("many__tool_050", "{}"), &context)
        .await;
    assert_eq!(denied.status, ToolCallStatus::Denied, "{}", denied.content);
    mcp.shutdown().await;
    cancel.cancel();
}
