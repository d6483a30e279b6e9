//! An MCP server's form during a tool call, answered on the page of a real `smallebot
//! serve` (the binary, its wiring of the web elicitor) in headless Chromium: the testkit
//! model calls the testkit MCP server's `ask` tool, the form card appears with its
//! fields (title, description, required mark, default), an answer that does not fit is
//! refused next to the form, which stays; the fixed answer submitted with Enter reaches
//! the server, whose result — with the answer — reaches the model and the tool card.
//! Screenshots desktop and phone, light and dark.

use crate::browser_support;
use crate::cli;

use std::time::{Duration, Instant};

use browser_support::{Chromium, click, eval, press, screenshots_in_each_scheme, send};
use browser_support::{set_viewport, type_into, wait_for};
use serde_json::json;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};
use tokio_util::sync::CancellationToken;

/// The model: a user message gets a call of `t__ask`, the tool's result `Thanks.`.
fn script(model: &TestModel) {
    cli::answer_titles(model);
    model.respond_with(|request: &RecordedRequest| {
        let last_is_tool = request
            .messages()
            .last()
            .is_some_and(|m| m["role"] == "tool");
        if last_is_tool {
            ScriptedResponse::text("Thanks.")
        } else {
            ScriptedResponse::tool_calls([ToolCallSpec::new("ask-1", "t__ask", "{}")])
        }
    });
}

/// The result of the call `ask-1` as the model got it (30 s at most).
async fn tool_result(model: &TestModel) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let found = model
            .requests()
            .iter()
            .flat_map(|r| r.messages().to_vec())
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == "ask-1");
        if let Some(message) = found {
            return message["content"].as_str().unwrap_or_default().to_owned();
        }
        assert!(Instant::now() < deadline, "no tool result for ask-1");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

const CARD_SHOWN: &str = "!document.getElementById('elicit-card').hidden";

#[tokio::test]
async fn a_server_s_form_is_answered_on_the_page_of_a_real_serve() {
    let Some(browser) = Chromium::start("elicitation form").await else {
        return;
    };
    let cancel = CancellationToken::new();
    let mcp = smallebot_testkit::mcp::serve_http(cancel.clone())
        .await
        .unwrap();
    let model = TestModel::start().await.unwrap();
    script(&model);
    let home = tempfile::tempdir().unwrap();
    let config = json!({ "mcpServers": { "t": {
        "url": format!("http://{mcp}/mcp"), "confirm": false } } });
    std::fs::write(home.path().join("mcp.json"), config.to_string()).unwrap();
    let mut serve = cli::smallebot(home.path(), Some(&model.base_url()));
    serve.args(["serve", "--addr", "127.0.0.1:0"]);
    let (mut child, _, base) = cli::start_serving(serve).await;

    let page = browser.open(&format!("{base}/")).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    send(&page, "Who am I?").await;
    wait_for(&page, CARD_SHOWN).await;
    let shown = eval(
        &page,
        "[document.getElementById('elicit-title').textContent, \
          document.getElementById('elicit-message').textContent, \
          [...document.querySelectorAll('#elicit-fields .elicit-field')].map(f => \
            [f.querySelector('label').textContent, f.querySelector('input, select').type, \
             f.querySelector('input, select').value, \
             f.querySelector('.elicit-about')?.textContent ?? null]), \
          document.activeElement.name]",
    )
    .await;
    let fields = shown[2].as_array().unwrap();
    let row = |label: &str| {
        fields
            .iter()
            .find(|f| f[0].as_str().unwrap().starts_with(label))
            .cloned()
            .unwrap_or_else(|| panic!("no {label} in {shown}"))
    };
    assert_eq!(shown[0], "The MCP server t asks:");
    assert_eq!(shown[1], "Who is asking?");
    assert_eq!(row("Name"), json!(["Name *", "text", "", "Your name"]));
    assert_eq!(row("age"), json!(["age", "number", "", null]));
    assert_eq!(row("color"), json!(["color", "select-one", "red", null]));
    assert!(shown[3].is_string(), "a field has the focus: {shown}");
    screenshots_in_each_scheme(&page, "elicitation").await;
    let fits = eval(
        &page,
        "document.getElementById('elicit-card').scrollWidth <= \
         document.getElementById('elicit-card').clientWidth",
    )
    .await;
    assert_eq!(fits, json!(true), "the card fits a phone's width");
    set_viewport(&page, 1280, 800).await;

    // Without a name, and an age out of range: refused next to the form, which stays.
    type_into(&page, "#elicit-form [name=age]", "200").await;
    press(&page, "#elicit-form [name=age]", "Enter").await;
    wait_for(&page, "!document.getElementById('elicit-error').hidden").await;
    let error = eval(&page, "document.getElementById('elicit-error').textContent").await;
    let error = error.as_str().unwrap();
    assert!(error.contains("name is required"), "{error}");
    assert!(error.contains("age: 200 is out of range"), "{error}");
    assert_eq!(eval(&page, CARD_SHOWN).await, json!(true));

    // Fixed, and sent with Enter.
    eval(
        &page,
        "document.querySelector('#elicit-form [name=age]').value = ''",
    )
    .await;
    type_into(&page, "#elicit-form [name=age]", "42").await;
    type_into(&page, "#elicit-form [name=name]", "Ann").await;
    press(&page, "#elicit-form [name=name]", "Enter").await;
    wait_for(&page, "document.getElementById('elicit-card').hidden").await;
    let result = tool_result(&model).await;
    assert!(result.contains("accepted"), "{result}");
    assert!(result.contains(r#""name":"Ann""#), "{result}");
    assert!(result.contains(r#""age":42"#), "{result}");
    assert!(result.contains(r#""color":"red""#), "the default: {result}");
    assert!(
        result.contains(r#"[MCP server t asked the person "Who is asking?": accepted"#),
        "noted on the call: {result}"
    );
    wait_for(
        &page,
        "[...document.querySelectorAll('.message.assistant')].some(m => \
         m.textContent.includes('Thanks.'))",
    )
    .await;
    click(
        &page,
        "[data-call-id='ask-1'] summary, [data-call-id='ask-1']",
    )
    .await;
    wait_for(
        &page,
        "document.querySelector(\"[data-call-id='ask-1']\")?.textContent.includes('asked the person')",
    )
    .await;
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    cancel.cancel();
    browser.close().await;
}
