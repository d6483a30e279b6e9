//! Permission rules on MCP tools, against the testkit's MCP server (this test binary is
//! the stdio server when started with `SMALLEBOT_MCP_TEST_SERVER` set, hence
//! `harness = false`): rules name the tools `mcp__<server>__<tool>`, globs included; a
//! denied call's result names the rule and the server is never called; an allow rule
//! lets a destructive tool run without the question it would otherwise get.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use smallebot_agent::config::{McpServerSettings, McpSettings, McpTransport};
use smallebot_agent::tools::{McpToolSource, PermissionGate, ToolRegistry, permission_argument};
use smallebot_application::ports::{
    CommandConfirmer, ConfirmationRequest, ToolContext, ToolExecutor, ToolInvocation, ToolOutcome,
};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::permission::{PermissionRule, PermissionRules};
use smallebot_mcp::McpServers;
use smallebot_testkit::mcp::{SERVE_ENV, TestFn, test_main};
use tokio_util::sync::CancellationToken;

fn main() {
    let tests: [(&str, TestFn); 1] = [(
        "mcp_tools_are_decided_by_rules_naming_them_mcp_server_tool",
        || Box::pin(mcp_tools_are_decided_by_rules_naming_them_mcp_server_tool()),
    )];
    test_main(&tests);
}

/// Records what it was asked; always says no.
#[derive(Default)]
struct Recording {
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl CommandConfirmer for Recording {
    async fn confirm(&self, request: &ConfirmationRequest<'_>, _timeout: Duration) -> bool {
        self.asked.lock().unwrap().push(request.command.to_owned());
        false
    }
}

/// A stdio server called `name` that is this test binary.
fn stdio_server(name: &str) -> McpServerSettings {
    McpServerSettings {
        name: name.to_owned(),
        transport: McpTransport::Stdio {
            command: std::env::current_exe().unwrap().display().to_string(),
            args: Vec::new(),
            env: BTreeMap::from([(SERVE_ENV.to_owned(), "1".to_owned())]),
            cwd: None,
        },
        enabled: true,
        startup_timeout: Duration::from_secs(20),
        tool_timeout: Duration::from_secs(20),
        confirm: None,
        max_message_bytes: 32 * 1024 * 1024,
        elicitation_timeout: std::time::Duration::from_secs(300),
        sampling: false,
    }
}

async fn call(registry: &ToolRegistry, name: &str, arguments: serde_json::Value) -> ToolOutcome {
    let invocation = ToolInvocation {
        call_id: "call_1".into(),
        name: name.into(),
        arguments: arguments.to_string(),
    };
    let context = ToolContext::in_turn(
        ConversationId::new(),
        TurnId::new(),
        CancellationToken::new(),
    );
    registry.execute(&invocation, &context).await
}

async fn mcp_tools_are_decided_by_rules_naming_them_mcp_server_tool() {
    let parsed = |rule: &str| PermissionRule::parse(rule, &permission_argument).unwrap();
    let rules = PermissionRules {
        allow: vec![parsed("mcp__srv__remove")],
        deny: vec![parsed("mcp__srv__e*")],
        ..PermissionRules::default()
    };
    let asked = Arc::new(Recording::default());
    let mcp = Arc::new(
        McpServers::start(
            &McpSettings {
                servers: vec![stdio_server("srv"), stdio_server("other")],
            },
            None,
        )
        .await
        .unwrap(),
    );
    assert!(mcp.warnings().is_empty(), "{:?}", mcp.warnings());
    let registry = ToolRegistry::new()
        .with_source(McpToolSource::new(Arc::clone(&mcp)))
        .with_gate(Arc::new(PermissionGate::new(rules, asked.clone())));

    // `mcp__srv__e*` denies srv's echo and env, naming the rule.
    for tool in ["srv__echo", "srv__env"] {
        let outcome = call(&registry, tool, serde_json::json!({"text": "hi"})).await;
        assert_eq!(outcome.status, ToolCallStatus::Denied, "{tool}");
        assert_eq!(
            outcome.content,
            format!(
                "Error: this call of mcp__{tool} was denied by the permission rule \
                 `deny mcp__srv__e*` in agent.json; it was not run. Do not retry it: do the \
                 task another way, or ask the user to change the rule."
            )
        );
    }
    // The other server's echo is not srv's: it runs.
    let echo = call(&registry, "other__echo", serde_json::json!({"text": "hi"})).await;
    assert_eq!(
        (echo.status, echo.content.as_str()),
        (ToolCallStatus::Ok, "echo: hi")
    );
    // The allow rule lets srv's destructive tool run without a question; the other
    // server's still asks (and is declined).
    let removed = call(&registry, "srv__remove", serde_json::json!({"path": "/d"})).await;
    assert_eq!(
        (removed.status, removed.content.as_str()),
        (ToolCallStatus::Ok, "removed /d")
    );
    let declined = call(
        &registry,
        "other__remove",
        serde_json::json!({"path": "/d"}),
    )
    .await;
    assert_eq!(
        declined.status,
        ToolCallStatus::Denied,
        "{}",
        declined.content
    );
    assert!(
        declined
            .content
            .contains("the user did not allow this call of mcp__other__remove"),
        "{}",
        declined.content
    );
    assert_eq!(
        *asked.asked.lock().unwrap(),
        [r#"other__remove {"path":"/d"}"#]
    );
    mcp.shutdown().await;
}
