//! Issue 46, resources and prompts: the testkit's MCP server (over streamable HTTP)
//! lists two resources (text and a PNG), the template `note://{name}` and the prompt
//! `review`; they are listed, read and got through [`McpServers`], with errors naming
//! the server. The model reads a resource with `ReadMcpResource` and its text reaches
//! the next request; a permission rule on `server:uri` denies one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use smallebot_agent::config::{McpServerSettings, McpSettings, McpTransport};
use smallebot_agent::tools::{
    McpToolSource, PermissionGate, ReadMcpResource, ToolRegistry, permission_argument,
};
use smallebot_application::SendOptions;
use smallebot_application::ports::{DenyAll, ToolContext, ToolExecutor, ToolInvocation};
use smallebot_core::entities::{ToolCallStatus, TurnStatus};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::permission::{PermissionRule, PermissionRules};
use smallebot_mcp::{McpPromptRole, McpRequestError, McpResourceContents, McpServers};
use smallebot_testkit::mcp::{PIXEL_URI, README_TEXT, README_URI, serve_http};
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};
use tokio_util::sync::CancellationToken;

/// The testkit server as `t`, over HTTP.
async fn test_server(cancel: &CancellationToken) -> Arc<McpServers> {
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
    let mcp = McpServers::start(
        &McpSettings {
            servers: vec![server],
        },
        None,
    )
    .await
    .unwrap();
    assert!(mcp.warnings().is_empty(), "{:?}", mcp.warnings());
    Arc::new(mcp)
}

#[tokio::test]
async fn resources_templates_and_prompts_are_listed_read_and_got() {
    let cancel = CancellationToken::new();
    let mcp = test_server(&cancel).await;
    let resources = mcp.resources("t").await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, [README_URI, PIXEL_URI]);
    assert_eq!(resources[0].mime_type.as_deref(), Some("text/plain"));
    let templates = mcp.resource_templates("t").await.unwrap();
    assert_eq!(templates[0].uri_template, "note://{name}");
    assert_eq!(templates[0].arguments(), ["name"]);

    let text = mcp.read_resource("t", README_URI).await.unwrap();
    assert!(
        matches!(&text[..], [McpResourceContents::Text { text, .. }] if text == README_TEXT),
        "{text:?}"
    );
    let note = mcp.read_resource("t", "note://groceries").await.unwrap();
    assert_eq!(note[0].describe(), "the note called groceries");
    let blob = mcp.read_resource("t", PIXEL_URI).await.unwrap();
    assert!(
        matches!(&blob[..], [McpResourceContents::Blob { mime_type: Some(m), size, .. }] if m == "image/png" && *size > 0),
        "{blob:?}"
    );

    let prompts = mcp.prompts("t").await.unwrap();
    assert_eq!(prompts[0].name, "review");
    assert_eq!(
        prompts[0]
            .arguments
            .iter()
            .map(|a| (a.name.as_str(), a.required))
            .collect::<Vec<_>>(),
        [("topic", true), ("tone", false)]
    );
    let args = BTreeMap::from([("topic".to_owned(), "the parser".to_owned())]);
    let messages = mcp.get_prompt("t", "review", &args).await.unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0].role, McpPromptRole::User);
    assert_eq!(messages[0].text, "Please review the parser (plain).");
    assert_eq!(messages[1].role, McpPromptRole::Assistant);

    mcp.shutdown().await;
    cancel.cancel();
}

#[tokio::test]
async fn failures_name_the_server_and_what_to_do() {
    let cancel = CancellationToken::new();
    let mcp = test_server(&cancel).await;
    let missing = mcp
        .get_prompt("t", "review", &BTreeMap::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&missing, McpRequestError::MissingArguments { missing, .. } if missing == &["topic"]),
        "{missing:?}"
    );
    let unknown = mcp.resources("nope").await.unwrap_err().to_string();
    assert!(
        unknown.contains("no enabled MCP server 'nope'") && unknown.contains("known: t"),
        "{unknown}"
    );
    let not_there = mcp
        .read_resource("t", "other://x")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        not_there.contains("reading other://x on the MCP server 't' failed"),
        "{not_there}"
    );
    let no_prompt = mcp
        .get_prompt("t", "nope", &BTreeMap::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        no_prompt.contains("has no prompt 'nope' (it has: review)"),
        "{no_prompt}"
    );
    mcp.shutdown().await;
    cancel.cancel();
}

#[tokio::test]
async fn the_model_reads_a_resource_and_its_text_reaches_the_next_request() {
    let cancel = CancellationToken::new();
    let mcp = test_server(&cancel).await;
    let h = harness(Options {
        sources: vec![McpToolSource::new(Arc::clone(&mcp))],
        ..Options::default()
    })
    .await;
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "call_1",
            ReadMcpResource::NAME,
            format!(r#"{{"server":"t","uri":"{README_URI}"}}"#),
        )]));
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "call_2",
            ReadMcpResource::NAME,
            format!(r#"{{"server":"t","uri":"{PIXEL_URI}"}}"#),
        )]));
    h.server.push(ScriptedResponse::text("read"));
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "read the readme", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed, "{:?}", outcome.error);
    let requests = h.server.turn_requests();
    let offered = requests[0].body["tools"].to_string();
    assert!(offered.contains(ReadMcpResource::NAME), "{offered}");
    let results = tool_messages(&requests[1]);
    assert!(results[0].1.contains(README_TEXT), "{results:?}");
    let results = tool_messages(&requests[2]);
    assert!(
        results[1]
            .1
            .starts_with("[binary resource file:///pixel.png: image/png,")
            && !results[1].1.contains(smallebot_testkit::mcp::PIXEL_PNG),
        "{results:?}"
    );
    mcp.shutdown().await;
    cancel.cancel();
}

#[tokio::test]
async fn resource_reads_pass_the_permission_gate_by_server_and_uri() {
    let cancel = CancellationToken::new();
    let mcp = test_server(&cancel).await;
    let rule = PermissionRule::parse("ReadMcpResource(t:file:///*)", &permission_argument).unwrap();
    let rules = PermissionRules {
        deny: vec![rule],
        ..PermissionRules::default()
    };
    let registry = ToolRegistry::new()
        .with_source(McpToolSource::new(Arc::clone(&mcp)))
        .with_gate(Arc::new(PermissionGate::new(rules, Arc::new(DenyAll))));
    let context = ToolContext::in_turn(
        ConversationId::new(),
        TurnId::new(),
        CancellationToken::new(),
    );
    let call = |uri: &str| ToolInvocation {
        call_id: "c".into(),
        name: ReadMcpResource::NAME.into(),
        arguments: serde_json::json!({"server": "t", "uri": uri}).to_string(),
    };
    let denied = registry.execute(&call(PIXEL_URI), &context).await;
    assert_eq!(denied.status, ToolCallStatus::Denied, "{}", denied.content);
    let read = registry.execute(&call(README_URI), &context).await;
    assert_eq!(
        (read.status, read.content.as_str()),
        (ToolCallStatus::Ok, README_TEXT)
    );
    let unknown = registry
        .execute(
            &ToolInvocation {
                call_id: "c".into(),
                name: ReadMcpResource::NAME.into(),
                arguments: r#"{"server":"nope","uri":"x://y"}"#.into(),
            },
            &context,
        )
        .await;
    assert!(
        unknown.content.contains("no enabled MCP server 'nope'"),
        "{}",
        unknown.content
    );
    mcp.shutdown().await;
    cancel.cancel();
}
