//! Issue 46: SmallEBot against the official MCP reference server "everything"
//! (`@modelcontextprotocol/server-everything`, pinned in crates/testkit/reference-servers)
//! over stdio, configured as a person writes it in mcp.json: its tools are offered and
//! called by the model, its resources, templates and prompts are listed, read and got.
//! Skipped with one loud line where it is not installed (CI installs it and requires it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use common::*;
use smallebot_agent::config::mcp_settings_from_json;
use smallebot_agent::tools::McpToolSource;
use smallebot_application::SendOptions;
use smallebot_core::entities::TurnStatus;
use smallebot_mcp::{McpPromptRole, McpRequestError, McpResourceContents, McpServers};
use smallebot_testkit::reference_servers::{self, ReferenceServer};
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

/// The reference server as `everything`, from an mcp.json as a person writes it.
async fn everything(server: &ReferenceServer) -> Arc<McpServers> {
    let json = serde_json::json!({
        "mcpServers": {
            "everything": { "command": server.program, "args": server.args }
        }
    });
    let settings =
        mcp_settings_from_json(&json.to_string(), Path::new("mcp.json"), &|_| None).unwrap();
    let mcp = McpServers::start(&settings, None).await.unwrap();
    assert!(mcp.warnings().is_empty(), "{:?}", mcp.warnings());
    Arc::new(mcp)
}

#[tokio::test]
async fn the_model_calls_the_reference_servers_tools_and_reads_their_results() {
    let Some(server) = reference_servers::everything("reference server tools") else {
        return;
    };
    let mcp = everything(&server).await;
    let h = harness(Options {
        sources: vec![McpToolSource::new(Arc::clone(&mcp))],
        ..Options::default()
    })
    .await;
    h.server.push(ScriptedResponse::tool_calls([
        ToolCallSpec::new(
            "call_1",
            "everything__echo",
            r#"{"message":"hello from SmallEBot"}"#,
        ),
        ToolCallSpec::new("call_2", "everything__get-sum", r#"{"a":2,"b":40}"#),
        ToolCallSpec::new(
            "call_3",
            "everything__get-annotated-message",
            r#"{"messageType":"success","includeImage":true}"#,
        ),
    ]));
    h.server.push(ScriptedResponse::text("done"));
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "use the reference tools", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed, "{:?}", outcome.error);
    let requests = h.server.turn_requests();
    let offered = requests[0].body["tools"].to_string();
    for name in ["everything__echo", "everything__get-sum"] {
        assert!(offered.contains(name), "{name} not offered: {offered}");
    }
    let results = tool_messages(&requests[1]);
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(
        results[0].1.contains("Echo: hello from SmallEBot"),
        "{results:?}"
    );
    assert!(results[1].1.contains("42"), "{results:?}");
    // Text and an image: the text reaches the model, the image's bytes do not.
    assert!(results[2].1.contains("success"), "{results:?}");
    assert!(results[2].1.len() < 2_000, "{results:?}");
    mcp.shutdown().await;
}

#[tokio::test]
async fn the_reference_servers_resources_templates_and_prompts_are_read_and_got() {
    let Some(server) = reference_servers::everything("reference server resources") else {
        return;
    };
    let mcp = everything(&server).await;
    let resources = mcp.resources("everything").await.unwrap();
    let architecture = "demo://resource/static/document/architecture.md";
    assert!(
        resources.iter().any(|r| r.uri == architecture),
        "{resources:?}"
    );
    let read = mcp.read_resource("everything", architecture).await.unwrap();
    assert!(
        matches!(&read[..], [McpResourceContents::Text { text, .. }] if !text.is_empty()),
        "{read:?}"
    );

    let templates = mcp.resource_templates("everything").await.unwrap();
    let text_template = templates
        .iter()
        .find(|t| t.uri_template == "demo://resource/dynamic/text/{resourceId}")
        .unwrap();
    assert_eq!(text_template.arguments(), ["resourceId"]);
    let dynamic = mcp
        .read_resource("everything", "demo://resource/dynamic/text/7")
        .await
        .unwrap();
    assert!(
        matches!(&dynamic[..], [McpResourceContents::Text { text, .. }] if text.contains('7')),
        "{dynamic:?}"
    );
    let blob = mcp
        .read_resource("everything", "demo://resource/dynamic/blob/7")
        .await
        .unwrap();
    assert!(
        matches!(&blob[..], [McpResourceContents::Blob { size, .. }] if *size > 0),
        "{blob:?}"
    );

    let prompts = mcp.prompts("everything").await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert!(
        names.contains(&"simple-prompt") && names.contains(&"args-prompt"),
        "{names:?}"
    );
    let simple = mcp
        .get_prompt("everything", "simple-prompt", &BTreeMap::new())
        .await
        .unwrap();
    assert_eq!(simple[0].role, McpPromptRole::User, "{simple:?}");
    assert!(!simple[0].text.is_empty(), "{simple:?}");
    let city = BTreeMap::from([("city".to_owned(), "Lisbon".to_owned())]);
    let with_city = mcp
        .get_prompt("everything", "args-prompt", &city)
        .await
        .unwrap();
    assert!(with_city[0].text.contains("Lisbon"), "{with_city:?}");
    let missing = mcp
        .get_prompt("everything", "args-prompt", &BTreeMap::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&missing, McpRequestError::MissingArguments { missing, .. } if missing == &["city"]),
        "{missing:?}"
    );
    mcp.shutdown().await;
}
