//! Large MCP results, over stdio (this test binary is the server when started with
//! `SMALLEBOT_MCP_TEST_SERVER` set, hence `harness = false`) and streamable HTTP: a
//! 12 MB result arrives whole under the default limit, and fails at once — far within
//! the tool timeout — with an error naming the limit when the server's
//! `maxResultMegabytes` is lower.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use smallebot_agent::config::{McpServerSettings, McpSettings, McpTransport};
use smallebot_agent::tools::{McpToolSource, ToolRegistry};
use smallebot_application::ports::{ToolContext, ToolExecutor, ToolInvocation, ToolOutcome};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_mcp::McpServers;
use smallebot_testkit::mcp::{SERVE_ENV, TestFn, serve_http, test_main};
use tokio_util::sync::CancellationToken;

fn main() {
    let tests: [(&str, TestFn); 2] = [
        ("a_12_mb_result_over_stdio_arrives_or_fails_at_once", || {
            Box::pin(over(Transport::Stdio))
        }),
        ("a_12_mb_result_over_http_arrives_or_fails_at_once", || {
            Box::pin(over(Transport::Http))
        }),
    ];
    test_main(&tests);
}

/// The result's size: 12 MB.
const CHARS: usize = 12_000_000;

/// Far below the tool timeout: a call that waits for the timeout fails the test.
const PROMPT: Duration = Duration::from_secs(20);

/// The tool timeout.
const TOOL_TIMEOUT: Duration = Duration::from_secs(300);

#[derive(Clone, Copy)]
enum Transport {
    Stdio,
    Http,
}

fn server(transport: McpTransport, max_megabytes: usize) -> McpServerSettings {
    McpServerSettings {
        name: "t".to_owned(),
        transport,
        enabled: true,
        startup_timeout: Duration::from_secs(20),
        tool_timeout: TOOL_TIMEOUT,
        confirm: None,
        max_message_bytes: max_megabytes * 1024 * 1024,
        elicitation_timeout: std::time::Duration::from_secs(300),
        sampling: false,
    }
}

async fn call_large(settings: McpServerSettings) -> ToolOutcome {
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
    let registry = ToolRegistry::new().with_source(McpToolSource::new(Arc::clone(&mcp)));
    let invocation = ToolInvocation {
        call_id: "call_1".into(),
        name: "t__large".into(),
        arguments: serde_json::json!({"chars": CHARS}).to_string(),
    };
    let context = ToolContext::in_turn(
        ConversationId::new(),
        TurnId::new(),
        CancellationToken::new(),
    );
    let outcome = tokio::time::timeout(PROMPT, registry.execute(&invocation, &context))
        .await
        .unwrap_or_else(|_| panic!("the call took more than {PROMPT:?}"));
    mcp.shutdown().await;
    outcome
}

async fn over(transport: Transport) {
    let cancel = CancellationToken::new();
    let make = match transport {
        Transport::Stdio => McpTransport::Stdio {
            command: std::env::current_exe().unwrap().display().to_string(),
            args: Vec::new(),
            env: BTreeMap::from([(SERVE_ENV.to_owned(), "1".to_owned())]),
            cwd: None,
        },
        Transport::Http => {
            let addr = serve_http(cancel.clone()).await.unwrap();
            McpTransport::Http {
                url: format!("http://{addr}/mcp"),
                headers: BTreeMap::new(),
                auth: smallebot_mcp::McpAuth::None,
            }
        }
    };
    // The default limit (32 MiB): it arrives whole.
    let default = smallebot_agent::config::DEFAULT_MAX_RESULT_MEGABYTES;
    let arrived = call_large(server(make.clone(), default)).await;
    assert_eq!(
        arrived.status,
        ToolCallStatus::Ok,
        "{:.300}",
        arrived.content
    );
    assert_eq!(arrived.content.len(), CHARS);
    assert!(arrived.content.bytes().all(|b| b == b'x'));

    // Over a lower limit: it fails at once, naming the limit.
    let refused = call_large(server(make, 8)).await;
    assert_eq!(
        refused.status,
        ToolCallStatus::Error,
        "{:.300}",
        refused.content
    );
    assert!(
        refused.content.contains("larger than the limit of 8 MiB")
            && refused.content.contains("maxResultMegabytes"),
        "{}",
        refused.content
    );
    cancel.cancel();
}
