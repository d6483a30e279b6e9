//! A tool call's hook runs on its card: a hooks.json `PreToolUse` hook that blocks the
//! call (exit 2) is listed under it with its event, command, exit code, time and
//! decision — in the timeline's JSON and on the page, live while the turn still runs
//! (sent with the call's events) and after a reload. Headless Chromium against a real
//! server and the scripted model; a screenshot under `target/ui-screenshots/`.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, eval, open_page, reload, screenshot, send, wait_for};
use common::Server;
use smallebot_agent::config::{CommandEnvironment, hooks_from_json};
use smallebot_agent::tools::HookRunner;
use smallebot_testkit::{Gate, ScriptedResponse, ToolCallSpec};

const HOOKS_JSON: &str = r#"{"hooks": {"PreToolUse": [{"matcher": "GetCurrentTime",
    "hooks": [{"type": "command", "command": "echo no clocks here >&2; exit 2"}]}]}}"#;

#[tokio::test]
async fn a_blocking_pre_tool_use_hook_is_listed_on_the_calls_card() {
    let Some(browser) = Chromium::start("hook runs on a card").await else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let config = hooks_from_json(HOOKS_JSON, &home.path().join("hooks.json")).unwrap();
    let runner = HookRunner::new(
        config,
        home.path().to_path_buf(),
        home.path().to_path_buf(),
        &CommandEnvironment::default(),
    );
    let s = Server::start_custom(|agent| agent.hook_runner(runner), |web| web).await;
    // The answer after the call waits, so the card is seen while the turn runs.
    let answer = Gate::new();
    s.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new("t1", "GetCurrentTime", "{}")]),
        ScriptedResponse::text("No time then.").hold_until(&answer),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "what time is it").await;
    let line = "document.querySelector('[data-call-id=\"t1\"] .hooks li')?.textContent";
    // Live: the card lists the run before the turn ends, without a reload.
    wait_for(&page, &format!("({line} || '').includes('block')")).await;
    let running = eval(
        &page,
        "document.querySelector('.message.assistant.rendered') === null",
    )
    .await;
    assert_eq!(running, serde_json::json!(true), "the turn already ended");
    answer.open();
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('No time then.')",
    )
    .await;
    // The model was told why.
    let told = s.turn_requests().last().unwrap().body.to_string();
    assert!(told.contains("no clocks here"), "{told}");

    // The stored timeline carries the run on the call's row.
    let id = eval(&page, "location.pathname.split('/').pop()").await;
    let timeline = s
        .get_json(&format!("/api/conversations/{}", id.as_str().unwrap()))
        .await;
    let call = timeline["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["kind"] == "tool_call")
        .unwrap();
    let hooks = call["hooks"].as_array().unwrap();
    assert_eq!(hooks.len(), 1, "{call}");
    assert_eq!(hooks[0]["event"], "PreToolUse");
    assert_eq!(hooks[0]["command"], "echo no clocks here >&2; exit 2");
    assert_eq!(hooks[0]["exit_code"], 2);
    assert_eq!(hooks[0]["decision"], "block");
    assert!(hooks[0]["duration_ms"].is_u64(), "{call}");

    // The card lists it once the turn's timeline is drawn, and again after a reload.
    for after_reload in [false, true] {
        if after_reload {
            reload(&page).await;
            wait_for(&page, "!document.getElementById('input').disabled").await;
        }
        wait_for(&page, &format!("({line} || '').includes('block')")).await;
        let text = eval(&page, line).await;
        let text = text.as_str().unwrap();
        assert!(
            text.starts_with("PreToolUse: echo no clocks here >&2; exit 2 → exit 2, ")
                && text.ends_with(" ms, block"),
            "{text}"
        );
    }
    screenshot(&page, "hooks-card").await;
}
