//! Sub-agents on the page, in headless Chromium: a `Delegate` call's card holds a nested
//! card per sub-agent that follows it live (started, running its tool, done with its
//! tool calls), is rebuilt the same after a reload from the stored sub-agent
//! conversation, links to that conversation, and the conversation list leaves the
//! sub-agent's conversation out. Screenshots at desktop and phone widths, light and
//! dark.

use crate::browser_support;
use crate::common;

use std::sync::Arc;

use browser_support::{
    Chromium, eval, open_page, reload, screenshots_in_each_scheme, send, wait_for,
};
use common::Server;
use smallebot_agent::agents::AgentFolders;
use smallebot_testkit::{Gate, RecordedRequest, ScriptedResponse, ToolCallSpec};

/// Whether `request` is the `clock` agent's (its prompt says so).
fn of_clock(request: &RecordedRequest) -> bool {
    request
        .messages()
        .first()
        .and_then(|m| m["content"].as_str())
        .is_some_and(|system| system.contains("You are clock."))
}

#[tokio::test]
async fn a_delegate_card_follows_its_sub_agent_live_and_after_a_reload() {
    let Some(browser) = Chromium::start("sub-agent cards").await else {
        return;
    };
    let agents = tempfile::tempdir().unwrap();
    std::fs::write(
        agents.path().join("clock.md"),
        "---\nname: clock\ndescription: Tells the time.\ntools: GetCurrentTime\n---\n\
         You are clock. Use GetCurrentTime once, then answer.\n",
    )
    .unwrap();
    let folders = AgentFolders {
        shared: agents.path().to_path_buf(),
        user: None,
    };
    let s = Server::start_custom(|agent| agent.sub_agents(folders, 8), |web| web).await;
    // The sub-agent's tool call waits for the gate: the page shows it running.
    let gate = Arc::new(Gate::new());
    let held = Arc::clone(&gate);
    s.model.answer_when(of_clock, move |r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("It is noon.")
        } else {
            ScriptedResponse::tool_calls([ToolCallSpec::new("t1", "GetCurrentTime", "{}")])
                .hold_until(&held)
        }
    });
    s.model.respond_with(|r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("The clock says noon.")
        } else {
            let args = serde_json::json!({
                "agent": "clock",
                "prompt": "Tell the time.",
                "description": "read the clock",
            });
            ScriptedResponse::tool_calls([ToolCallSpec::new("d1", "Delegate", args.to_string())])
        }
    });
    let page = open_page(&s, &browser).await;
    send(&page, "What time is it? Ask the clock.").await;
    let sub = "document.querySelector('[data-call-id=\"d1\"] .subagent')";
    wait_for(&page, &format!("{sub}?.classList.contains('running')")).await;
    let started = eval(
        &page,
        &format!(
            "[{sub}.querySelector('.agent').textContent, \
             {sub}.querySelector('.description').textContent]"
        ),
    )
    .await;
    assert_eq!(started, serde_json::json!(["clock", "read the clock"]));
    gate.open();
    wait_for(&page, &format!("{sub}?.classList.contains('completed')")).await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('noon')",
    )
    .await;
    let live = eval(
        &page,
        &format!(
            "[{sub}.querySelector('.subagent-status').textContent, \
             {sub}.querySelector('a.open').getAttribute('href')]"
        ),
    )
    .await;
    assert_eq!(live[0], "done · 1 tool call", "{live}");
    let link = live[1].as_str().unwrap().to_owned();
    let child = link.rsplit('/').next().unwrap().to_owned();
    let listed = s.get_json("/api/conversations").await;
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 1, "only the parent is listed: {listed}");
    assert_ne!(ids[0], child, "the sub-agent's conversation is not listed");
    let timeline = s.get_json(&format!("/api/conversations/{child}")).await;
    assert_eq!(timeline["conversation"]["title"], "clock: read the clock");

    screenshots_in_each_scheme(&page, "subagents").await;

    // Rebuilt from the stored sub-agent conversation after a reload.
    reload(&page).await;
    wait_for(&page, &format!("{sub}?.classList.contains('completed')")).await;
    let rebuilt = eval(
        &page,
        &format!(
            "[{sub}.querySelector('.agent').textContent, \
             {sub}.querySelector('.description').textContent, \
             {sub}.querySelector('.subagent-status').textContent, \
             {sub}.querySelector('a.open').getAttribute('href'), \
             document.querySelectorAll('#conversations li').length]"
        ),
    )
    .await;
    assert_eq!(
        rebuilt,
        serde_json::json!(["clock", "read the clock", "done · 1 tool call", link, 1]),
    );
    browser.close().await;
}
