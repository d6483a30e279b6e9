//! MCP resources and prompts in the chat, against the testkit's MCP server over HTTP:
//! `@t:note://readme` attaches the resource and its text reaches the model's request;
//! `/t:review` asks for its required argument and sends the prompt's messages; `/help`
//! lists the prompt.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use smallebot_agent::config::{McpServerSettings, McpSettings, McpTransport};
use smallebot_agent::tools::ToolRegistry;
use smallebot_application::ConversationService;
use smallebot_mcp::McpServers;
use smallebot_testkit::mcp::{README_TEXT, serve_http};
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Repl;
use super::input::PipedInput;
use super::test_support::service_with;
use crate::render::{EventPrinter, Style};

/// The testkit's MCP server as `t`, over HTTP.
async fn mcp_servers(cancel: &CancellationToken) -> Arc<McpServers> {
    let addr = serve_http(cancel.clone()).await.unwrap();
    let server = McpServerSettings {
        name: "t".to_owned(),
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
    let settings = McpSettings {
        servers: vec![server],
    };
    Arc::new(McpServers::start(&settings, None).await.unwrap())
}

/// Runs the REPL with the MCP servers on `input`; returns what it printed.
async fn run_with_mcp(
    service: &Arc<ConversationService>,
    mcp: &Arc<McpServers>,
    input: &str,
) -> String {
    let (_tx, interrupts) = mpsc::unbounded_channel();
    let mut out = Vec::new();
    {
        let printer = EventPrinter::new(&mut out, false, Style { ansi: false });
        let mut repl = Repl::new(
            Arc::clone(service),
            "tester".into(),
            None,
            printer,
            interrupts,
        )
        .with_mcp(Arc::clone(mcp));
        repl.run(PipedInput::new(input.as_bytes())).await.unwrap();
    }
    String::from_utf8(out).unwrap()
}

#[tokio::test]
async fn a_mentioned_resource_reaches_the_model_and_a_prompt_sends_its_messages() {
    let cancel = CancellationToken::new();
    let mcp = mcp_servers(&cancel).await;
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let service = service_with(dir.path(), &server, ToolRegistry::new()).await;
    server.answer_when(RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    server.push(ScriptedResponse::text("Read it."));
    server.push(ScriptedResponse::text("Reviewed."));
    server.push(ScriptedResponse::text("Reviewed again."));
    let out = run_with_mcp(
        &service,
        &mcp,
        "summarize @t:note://readme please\n/t:review\nthe parser\n\
         /t:review tone=dry the lexer\n/t:review\n\n/help\n/quit\n",
    )
    .await;
    assert!(out.contains("attached [file: readme.txt"), "{out}");
    let requests = server.turn_requests();
    let parts = requests[0].last_user_parts();
    let attached = parts[1]["text"].as_str().unwrap();
    assert!(
        attached.contains("readme.txt") && attached.contains(README_TEXT),
        "{attached}"
    );
    // The missing `topic` was asked for and the answer used.
    assert!(out.contains("topic (What to review): "), "{out}");
    assert_eq!(
        requests[1].last_user_text(),
        Some("Please review the parser (plain).\n\n(assistant) Reviewing now.".to_owned())
    );
    assert_eq!(
        requests[2].last_user_text(),
        Some("Please review the lexer (dry).\n\n(assistant) Reviewing now.".to_owned())
    );
    // An empty answer gives up.
    assert!(out.contains("the prompt was not sent"), "{out}");
    assert_eq!(requests.len(), 3);
    assert!(
        out.contains("MCP prompts:\n  /t:review TOPIC [TONE]\n                 Ask for a review"),
        "{out}"
    );
    mcp.shutdown().await;
    cancel.cancel();
}
