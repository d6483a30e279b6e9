//! An MCP server's question during a tool call (elicitation) answered in a real
//! terminal (tmux): the chat shows who asks and why, asks whether to answer, then each
//! field; an answer that does not fit (out of range, a required one left empty) says
//! why and asks that field again; the default is taken on an empty line; the server
//! gets the answer, and the model the tool's result with it. Skipped with one loud line
//! without tmux (CI requires it).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use tokio_util::sync::CancellationToken;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_form_is_answered_field_by_field_in_the_chat() {
    let cancel = CancellationToken::new();
    let addr = smallebot_testkit::mcp::serve_http(cancel.clone())
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let config =
        serde_json::json!({ "mcpServers": { "t": { "url": format!("http://{addr}/mcp") } } });
    std::fs::write(home.path().join("mcp.json"), config.to_string()).unwrap();
    let model = TestModel::start().await.unwrap();
    model.respond_with(|request| {
        if request.asks_for_title() {
            ScriptedResponse::text("A title")
        } else if request.tool_results_since_user() == 0 {
            ScriptedResponse::tool_calls([ToolCallSpec::new("ask-1", "t__ask", "{}")])
        } else {
            ScriptedResponse::text("Thanks, noted.")
        }
    });
    let Some(term) = tmux::chat_in("mcp elicitation", home.path(), cwd.path(), &model) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("who am I?");
    term.keys(&["Enter"]);
    term.wait_for("The MCP server t asks: Who is asking?");
    term.wait_for("Answer? [Y/n = decline, c = cancel]");
    term.keys(&["Enter"]);
    // The fields come in name order (the server's schema arrives as a map).
    term.wait_for("age: ");
    term.type_text("200");
    term.keys(&["Enter"]);
    term.wait_for("try again");
    term.type_text("42");
    term.keys(&["Enter"]);
    term.wait_for("color: ");
    term.keys(&["Enter"]);
    term.wait_for("name: ");
    term.keys(&["Enter"]);
    term.wait_for("name is required; try again");
    term.type_text("Ann");
    term.keys(&["Enter"]);
    term.wait_for("→ sent");
    term.wait_for_prompt_after("Thanks, noted.");

    let result = model
        .turn_requests()
        .iter()
        .flat_map(|r| r.messages().to_vec())
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "ask-1")
        .expect("the tool's result reached the model");
    let content = result["content"].as_str().unwrap();
    assert!(content.contains("accepted"), "{content}");
    assert!(content.contains(r#""name":"Ann""#), "{content}");
    assert!(content.contains(r#""age":42"#), "{content}");
    assert!(content.contains(r#""color":"red""#), "{content}");
    cancel.cancel();
}
