//! An MCP server's request for a completion during a tool call (sampling) through the
//! real binary: with `"sampling": true` the conversation's model answers it (the
//! server's messages and token limit as sent, no tools), the server gets the answer, and
//! the request is recorded and priced with the turn's; without it the server is told
//! how to enable it and the model is not asked.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use cli::text;
use serde_json::{Value, json};
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};
use tokio_util::sync::CancellationToken;

/// Whether `request` is the testkit MCP server's sampling request (`Say hello`).
fn is_sampling(request: &RecordedRequest) -> bool {
    request.last_user_text().as_deref() == Some("Say hello") && request.tools().is_empty()
}

/// A priced home on `model` with the testkit MCP server `t` at `addr`.
fn home(model: &TestModel, addr: std::net::SocketAddr, sampling: bool) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let models = json!({"default": "big", "models": [{
        "id": "big", "baseUrl": model.base_url(), "model": "scripted",
        "pricing": {"inputPerMTok": 2, "outputPerMTok": 8, "currency": "USD"}}]});
    std::fs::write(home.path().join("models.json"), models.to_string()).unwrap();
    let mcp =
        json!({"mcpServers": {"t": {"url": format!("http://{addr}/mcp"), "sampling": sampling}}});
    std::fs::write(home.path().join("mcp.json"), mcp.to_string()).unwrap();
    home
}

/// The model: calls `t__sample` once, answers the sampling request, then ends.
fn script(model: &TestModel) {
    model.respond_with(|r| {
        if r.asks_for_title() {
            ScriptedResponse::text("A title").usage(10, 2)
        } else if is_sampling(r) {
            ScriptedResponse::text("Hello from the model").usage(30, 5)
        } else if r.tool_results_since_user() == 0 {
            ScriptedResponse::tool_calls([ToolCallSpec::new("s1", "t__sample", "{}")])
                .usage(100, 10)
        } else {
            ScriptedResponse::text("Done.").usage(120, 3)
        }
    });
}

/// What one `smallebot run` of the scripted turn leaves to check.
struct Sampled {
    /// Stops the testkit MCP server.
    cancel: CancellationToken,
    model: TestModel,
    home: tempfile::TempDir,
}

/// The testkit MCP server over HTTP, the scripted model and a home with sampling
/// `enabled` or not; one `smallebot run` of the turn, which must succeed.
async fn run_sampling(enabled: bool) -> Sampled {
    let cancel = CancellationToken::new();
    let addr = smallebot_testkit::mcp::serve_http(cancel.clone())
        .await
        .unwrap();
    let model = TestModel::start().await.unwrap();
    script(&model);
    let home = home(&model, addr, enabled);
    let out = cli::smallebot(home.path(), None)
        .args(["run", "Sample something."])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    Sampled {
        cancel,
        model,
        home,
    }
}

/// The result of the call `s1` as the model got it.
fn sample_result(model: &TestModel) -> String {
    model
        .requests()
        .iter()
        .flat_map(|r| r.messages().to_vec())
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "s1")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .expect("the call's result reached the model")
}

#[tokio::test]
async fn an_enabled_servers_sampling_is_answered_by_the_conversations_model_and_billed() {
    let Sampled {
        cancel,
        model,
        home,
    } = run_sampling(true).await;

    let requests = model.requests();
    let sampling: Vec<&RecordedRequest> = requests.iter().filter(|r| is_sampling(r)).collect();
    assert_eq!(sampling.len(), 1, "{requests:?}");
    let asked = &sampling[0].body;
    assert_eq!(asked["max_tokens"], 50, "{asked}");
    let roles: Vec<&str> = sampling[0]
        .messages()
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    assert!(
        !roles.contains(&"tool") && !roles.contains(&"assistant"),
        "{asked}"
    );
    let result = sample_result(&model);
    assert!(
        result.contains("sampled from big: Hello from the model"),
        "{result}"
    );

    // Recorded with the turn's requests, and priced: 30 prompt and 5 completion tokens.
    let usage = cli::smallebot(home.path(), None)
        .args(["usage", "--json"])
        .output()
        .await
        .unwrap();
    let report: Value = serde_json::from_str(&text(&usage.stdout)).unwrap();
    assert_eq!(
        report["total"]["requests"].as_i64().unwrap(),
        requests.len() as i64,
        "{report}"
    );
    let total = &report["total"];
    assert_eq!(
        total["prompt_tokens"].as_i64().unwrap(),
        10 + 30 + 100 + 120,
        "{report}"
    );
    assert_eq!(
        total["completion_tokens"].as_i64().unwrap(),
        2 + 5 + 10 + 3,
        "{report}"
    );
    cancel.cancel();
}

#[tokio::test]
async fn without_the_setting_the_server_is_told_how_to_enable_it() {
    let Sampled {
        cancel,
        model,
        home: _home,
    } = run_sampling(false).await;
    assert!(!model.requests().iter().any(is_sampling));
    let result = sample_result(&model);
    assert!(
        result.contains(
            "sampling is not enabled for MCP server t; set \"sampling\": true for it in mcp.json"
        ),
        "{result}"
    );
    cancel.cancel();
}
