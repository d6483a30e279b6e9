//! `McpServers::shutdown` with a stdio server stuck in a call, started through a
//! wrapper (`bash -c`) that started a child of its own: the whole process group is
//! gone within a deadline, the call ends, and no later call starts the server again.
//! This test binary is also the MCP server, hence `harness = false`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use smallebot_agent::config::{McpServerSettings, McpSettings, McpTransport};
use smallebot_agent::tools::{McpToolSource, ToolRegistry};
use smallebot_application::ports::{ToolContext, ToolExecutor, ToolInvocation, ToolOutcome};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_mcp::McpServers;
use smallebot_testkit::mcp::{SERVE_ENV, SLEEP_FILE_ENV, TestFn, test_main};
use tokio_util::sync::CancellationToken;

fn main() {
    let tests: [(&str, TestFn); 1] = [(
        "shutdown_kills_a_wrapped_server_stuck_in_a_call_and_its_child",
        || Box::pin(shutdown_kills_a_wrapped_server_stuck_in_a_call_and_its_child()),
    )];
    test_main(&tests);
}

fn alive(pid: u32) -> bool {
    // A zombie is gone for our purpose (its parent has not reaped it yet).
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| !s.trim_start().starts_with('Z'))
    })
}

fn read_pid(file: &Path) -> u32 {
    std::fs::read_to_string(file)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
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

async fn shutdown_kills_a_wrapped_server_stuck_in_a_call_and_its_child() {
    let dir = tempfile::tempdir().unwrap();
    let (wrapper_pid, child_pid) = (dir.path().join("wrapper.pid"), dir.path().join("child.pid"));
    let sleeping = dir.path().join("sleeping");
    let script = format!(
        "echo $$ > {}; sleep 1000 & echo $! > {}; \"$0\"",
        wrapper_pid.display(),
        child_pid.display()
    );
    let settings = McpServerSettings {
        name: "t".to_owned(),
        transport: McpTransport::Stdio {
            command: "/bin/bash".to_owned(),
            args: vec![
                "-c".to_owned(),
                script,
                std::env::current_exe().unwrap().display().to_string(),
            ],
            env: BTreeMap::from([
                (SERVE_ENV.to_owned(), "1".to_owned()),
                (SLEEP_FILE_ENV.to_owned(), sleeping.display().to_string()),
            ]),
            cwd: None,
        },
        enabled: true,
        startup_timeout: Duration::from_secs(20),
        tool_timeout: Duration::from_secs(600),
        confirm: None,
        max_message_bytes: 32 * 1024 * 1024,
        elicitation_timeout: std::time::Duration::from_secs(300),
        sampling: false,
    };
    let mcp = Arc::new(
        McpServers::start(
            &McpSettings {
                servers: vec![settings],
            },
            None,
        )
        .await
        .unwrap(),
    );
    assert!(mcp.warnings().is_empty(), "{:?}", mcp.warnings());
    let registry = Arc::new(ToolRegistry::new().with_source(McpToolSource::new(Arc::clone(&mcp))));
    let (wrapper, child) = (read_pid(&wrapper_pid), read_pid(&child_pid));

    // A call that would take ten minutes.
    let stuck = tokio::spawn({
        let registry = Arc::clone(&registry);
        async move { call(&registry, "t__sleep", serde_json::json!({"ms": 600_000})).await }
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    while !sleeping.exists() {
        assert!(
            Instant::now() < deadline,
            "the call never reached the server"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    mcp.shutdown().await;
    // Idempotent.
    mcp.shutdown().await;

    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(wrapper) || alive(child) {
        if Instant::now() >= deadline {
            let left = format!(
                "left after shutdown: wrapper {wrapper} alive {}, its child {child} alive {}",
                alive(wrapper),
                alive(child)
            );
            for pid in [wrapper, child] {
                let _ = std::process::Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status();
            }
            panic!("{left}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let ended = tokio::time::timeout(Duration::from_secs(5), stuck)
        .await
        .expect("the stuck call ended with the shutdown")
        .unwrap();
    assert_eq!(ended.status, ToolCallStatus::Error, "{}", ended.content);

    // Nothing starts it again.
    let after = call(&registry, "t__echo", serde_json::json!({"text": "hi"})).await;
    assert_eq!(after.status, ToolCallStatus::Error, "{}", after.content);
    assert!(after.content.contains("was stopped"), "{}", after.content);
    assert!(!alive(read_pid(&wrapper_pid)));
}
