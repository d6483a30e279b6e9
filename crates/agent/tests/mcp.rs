//! MCP servers as tool providers, against the testkit's MCP server built with the same
//! SDK: over stdio (this test binary is the server when started with
//! `SMALLEBOT_MCP_TEST_SERVER` set, hence `harness = false`) and streamable HTTP.
//!
//! Cases: tools listed as `{server}__{tool}`, echo, a tool error, a large result, an
//! image, schema validation before sending, a crash mid-call and the restart, a call
//! over its timeout, a server that never starts (with its standard error), name
//! collisions, destructive tools asking first, and the HTTP transport.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use smallebot_agent::config::{McpServerSettings, McpSettings, McpTransport};
use smallebot_agent::tools::{McpToolSource, PermissionGate, ToolRegistry};
use smallebot_application::ports::{
    CommandConfirmer, ConfirmationRequest, DenyAll, ToolContext, ToolExecutor, ToolInvocation,
    ToolOutcome,
};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::permission::PermissionRules;
use smallebot_mcp::{McpServers, McpStartError};
use smallebot_testkit::mcp::{SERVE_ENV, TOOLSET_ENV, TestFn, serve_http, test_main};
use tokio_util::sync::CancellationToken;

fn main() {
    let tests: [(&str, TestFn); 8] = [
        ("stdio_tools_answer_and_fail_clearly", || {
            Box::pin(stdio_tools_answer_and_fail_clearly())
        }),
        (
            "a_crash_mid_call_fails_it_and_the_next_call_restarts",
            || Box::pin(a_crash_mid_call_fails_it_and_the_next_call_restarts()),
        ),
        ("a_call_over_its_timeout_fails", || {
            Box::pin(a_call_over_its_timeout_fails())
        }),
        (
            "servers_that_never_start_leave_a_warning_and_do_not_block",
            || Box::pin(servers_that_never_start_leave_a_warning_and_do_not_block()),
        ),
        ("clashing_names_are_an_error_at_start", || {
            Box::pin(clashing_names_are_an_error_at_start())
        }),
        (
            "destructive_tools_ask_first_unless_configured_not_to",
            || Box::pin(destructive_tools_ask_first_unless_configured_not_to()),
        ),
        ("the_http_transport_works", || {
            Box::pin(the_http_transport_works())
        }),
        ("a_changed_tool_list_is_picked_up", || {
            Box::pin(a_changed_tool_list_is_picked_up())
        }),
    ];
    test_main(&tests);
}

/// A stdio server that is this test binary.
fn stdio_server(name: &str, extra_env: &[(&str, &str)]) -> McpServerSettings {
    let mut env = BTreeMap::from([(SERVE_ENV.to_owned(), "1".to_owned())]);
    for (key, value) in extra_env {
        env.insert((*key).to_owned(), (*value).to_owned());
    }
    McpServerSettings {
        name: name.to_owned(),
        transport: McpTransport::Stdio {
            command: std::env::current_exe().unwrap().display().to_string(),
            args: Vec::new(),
            env,
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

async fn start(servers: Vec<McpServerSettings>) -> (Arc<McpServers>, ToolRegistry) {
    start_with(servers, Arc::new(DenyAll)).await
}

async fn start_with(
    servers: Vec<McpServerSettings>,
    confirmer: Arc<dyn CommandConfirmer>,
) -> (Arc<McpServers>, ToolRegistry) {
    let mcp = Arc::new(
        McpServers::start(&McpSettings { servers }, None)
            .await
            .unwrap(),
    );
    // Destructive tools ask through the registry's permission gate.
    let gate = PermissionGate::new(PermissionRules::default(), confirmer);
    let registry = ToolRegistry::new()
        .with_source(McpToolSource::new(Arc::clone(&mcp)))
        .with_gate(Arc::new(gate));
    (mcp, registry)
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

async fn stdio_tools_answer_and_fail_clearly() {
    let (mcp, registry) = start(vec![stdio_server("t", &[])]).await;
    assert!(mcp.warnings().is_empty(), "{:?}", mcp.warnings());
    let mut names = registry.names();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            // The server declares resources: the model may read them.
            "ReadMcpResource",
            "t__ask",
            "t__crash",
            "t__echo",
            "t__env",
            "t__fail",
            "t__grow",
            "t__image",
            "t__large",
            "t__remove",
            "t__sample",
            "t__sleep"
        ]
    );
    let schema = registry.get("t__echo").unwrap().schema();
    assert!(
        schema.description.contains("Echo the text back"),
        "{}",
        schema.description
    );
    assert_eq!(schema.parameters["required"], serde_json::json!(["text"]));

    let echo = call(&registry, "t__echo", serde_json::json!({"text": "hi"})).await;
    assert_eq!(
        (echo.status, echo.content.as_str()),
        (ToolCallStatus::Ok, "echo: hi")
    );

    let failed = call(&registry, "t__fail", serde_json::json!({})).await;
    assert_eq!(failed.status, ToolCallStatus::Error);
    assert!(
        failed.content.contains("the tool failed on purpose"),
        "{}",
        failed.content
    );

    let large = call(&registry, "t__large", serde_json::json!({"chars": 50_000})).await;
    assert_eq!(large.status, ToolCallStatus::Ok);
    assert_eq!(
        large.content.len(),
        50_000,
        "stored in full; the history builder cuts"
    );

    let image = call(&registry, "t__image", serde_json::json!({})).await;
    assert_eq!(image.status, ToolCallStatus::Ok);
    assert!(
        image.content.starts_with("a pixel\n[image: image/png, "),
        "{}",
        image.content
    );

    let invalid = call(&registry, "t__echo", serde_json::json!({"text": 5})).await;
    assert_eq!(invalid.status, ToolCallStatus::Error);
    assert!(
        invalid.content.contains("arguments.text must be string"),
        "{}",
        invalid.content
    );
    let missing = call(&registry, "t__sleep", serde_json::json!({})).await;
    assert!(
        missing.content.contains("arguments.ms is required"),
        "{}",
        missing.content
    );
    mcp.shutdown().await;
}

async fn a_crash_mid_call_fails_it_and_the_next_call_restarts() {
    let (mcp, registry) = start(vec![stdio_server("c", &[])]).await;
    let crashed = call(&registry, "c__crash", serde_json::json!({})).await;
    assert_eq!(crashed.status, ToolCallStatus::Error);
    assert!(
        crashed
            .content
            .contains("MCP server 'c' stopped during the call"),
        "{}",
        crashed.content
    );
    let status = mcp.status().await;
    assert!(!status[0].running, "{status:?}");
    assert!(status[0].last_error.is_some());
    let again = call(&registry, "c__echo", serde_json::json!({"text": "back"})).await;
    assert_eq!(
        (again.status, again.content.as_str()),
        (ToolCallStatus::Ok, "echo: back")
    );
    assert!(mcp.status().await[0].running);
    mcp.shutdown().await;
}

async fn a_call_over_its_timeout_fails() {
    let mut server = stdio_server("s", &[]);
    server.tool_timeout = Duration::from_secs(1);
    let (mcp, registry) = start(vec![server]).await;
    let started = Instant::now();
    let outcome = call(&registry, "s__sleep", serde_json::json!({"ms": 5000})).await;
    assert!(started.elapsed() < Duration::from_secs(4));
    assert_eq!(outcome.status, ToolCallStatus::Error);
    assert!(
        outcome
            .content
            .contains("did not answer within 1 s (toolTimeoutSeconds)"),
        "{}",
        outcome.content
    );
    mcp.shutdown().await;
}

async fn servers_that_never_start_leave_a_warning_and_do_not_block() {
    let missing = McpServerSettings {
        transport: McpTransport::Stdio {
            command: "/nonexistent/mcp-server".into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        },
        ..stdio_server("missing", &[])
    };
    let silent = McpServerSettings {
        transport: McpTransport::Stdio {
            command: "/bin/sh".into(),
            args: vec!["-c".into(), "echo starting up slowly >&2; sleep 30".into()],
            env: BTreeMap::new(),
            cwd: None,
        },
        startup_timeout: Duration::from_secs(1),
        ..stdio_server("silent", &[])
    };
    let started = Instant::now();
    let (mcp, registry) = start(vec![missing, silent, stdio_server("ok", &[])]).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    let warnings = mcp.warnings().join("\n");
    assert!(
        warnings.contains("MCP server 'missing' is not available")
            && warnings.contains("could not start '/nonexistent/mcp-server'"),
        "{warnings}"
    );
    assert!(
        warnings.contains("MCP server 'silent' is not available")
            && warnings.contains("did not start within 1 s")
            && warnings.contains("starting up slowly"),
        "{warnings}"
    );
    // The good server's tools are there all the same.
    let echo = call(&registry, "ok__echo", serde_json::json!({"text": "x"})).await;
    assert_eq!(echo.status, ToolCallStatus::Ok);
    assert!(
        registry
            .names()
            .iter()
            .all(|n| n.starts_with("ok__") || n == "ReadMcpResource")
    );
    mcp.shutdown().await;
}

async fn clashing_names_are_an_error_at_start() {
    let server = stdio_server("x", &[(TOOLSET_ENV, "colliding")]);
    let error = McpServers::start(
        &McpSettings {
            servers: vec![server],
        },
        None,
    )
    .await
    .err()
    .expect("a collision");
    let McpStartError::Collision { name, .. } = &error;
    assert_eq!(name, "x__same_name");
    assert!(error.to_string().contains("x/same.name"), "{error}");
}

#[derive(Default)]
struct Recording {
    answer: bool,
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl CommandConfirmer for Recording {
    async fn confirm(&self, request: &ConfirmationRequest<'_>, _timeout: Duration) -> bool {
        self.asked.lock().unwrap().push(request.command.to_owned());
        self.answer
    }
}

async fn destructive_tools_ask_first_unless_configured_not_to() {
    let asked = Arc::new(Recording::default());
    let (mcp, registry) = start_with(vec![stdio_server("d", &[])], asked.clone()).await;
    let denied = call(&registry, "d__remove", serde_json::json!({"path": "/data"})).await;
    assert_eq!(denied.status, ToolCallStatus::Denied, "{}", denied.content);
    let echo = call(
        &registry,
        "d__echo",
        serde_json::json!({"text": "no question"}),
    )
    .await;
    assert_eq!(echo.status, ToolCallStatus::Ok);
    assert_eq!(
        *asked.asked.lock().unwrap(),
        [r#"d__remove {"path":"/data"}"#]
    );
    mcp.shutdown().await;

    let mut trusted = stdio_server("n", &[]);
    trusted.confirm = Some(false);
    let none = Arc::new(Recording::default());
    let (mcp, registry) = start_with(vec![trusted], none.clone()).await;
    let removed = call(&registry, "n__remove", serde_json::json!({"path": "/data"})).await;
    assert_eq!(
        (removed.status, removed.content.as_str()),
        (ToolCallStatus::Ok, "removed /data")
    );
    assert!(none.asked.lock().unwrap().is_empty());
    mcp.shutdown().await;
}

async fn the_http_transport_works() {
    let cancel = CancellationToken::new();
    let addr = serve_http(cancel.clone()).await.unwrap();
    let server = McpServerSettings {
        transport: McpTransport::Http {
            url: format!("http://{addr}/mcp"),
            headers: BTreeMap::from([("X-Test".to_owned(), "1".to_owned())]),
            auth: smallebot_mcp::McpAuth::None,
        },
        ..stdio_server("web", &[])
    };
    let (mcp, registry) = start(vec![server]).await;
    assert!(mcp.warnings().is_empty(), "{:?}", mcp.warnings());
    let echo = call(
        &registry,
        "web__echo",
        serde_json::json!({"text": "over http"}),
    )
    .await;
    assert_eq!(
        (echo.status, echo.content.as_str()),
        (ToolCallStatus::Ok, "echo: over http")
    );
    mcp.shutdown().await;
    cancel.cancel();
}

async fn a_changed_tool_list_is_picked_up() {
    let (mcp, registry) = start(vec![stdio_server("g", &[])]).await;
    assert!(registry.schemas().iter().all(|s| s.name != "g__late"));
    let unknown = call(&registry, "g__late", serde_json::json!({})).await;
    assert!(
        unknown.content.contains("unknown tool 'g__late'"),
        "{}",
        unknown.content
    );
    let grown = call(&registry, "g__grow", serde_json::json!({})).await;
    assert_eq!(
        (grown.status, grown.content.as_str()),
        (ToolCallStatus::Ok, "grown")
    );
    // The notification and the new listing arrive in the background.
    let deadline = Instant::now() + Duration::from_secs(10);
    while registry.schemas().iter().all(|s| s.name != "g__late") {
        assert!(Instant::now() < deadline, "the new tool never appeared");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let late = call(&registry, "g__late", serde_json::json!({})).await;
    assert_eq!(
        (late.status, late.content.as_str()),
        (ToolCallStatus::Ok, "late tool")
    );
    assert_eq!(mcp.status().await[0].tools, 12);
    mcp.shutdown().await;
}
