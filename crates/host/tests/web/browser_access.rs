//! The page in headless Chromium: the task drawer following a plan, command
//! confirmations, signing in. Each test drives what a person does against a real
//! server and the scripted model, and saves a screenshot under
//! `target/ui-screenshots/`.

use crate::browser_support;
use crate::common;

use std::time::Duration;

use browser_support::{
    Chromium, click, eval, open_page, reload, screenshot, send, type_into, wait_for,
};
use common::Server;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

#[tokio::test]
async fn the_task_drawer_follows_the_plan_while_it_runs() {
    let Some(browser) = Chromium::start("task drawer").await else {
        return;
    };
    let tasks = tempfile::tempdir().unwrap();
    let task_dir = tasks.path().to_path_buf();
    let s = Server::start_custom(
        move |agent| {
            agent.task_store(std::sync::Arc::new(
                smallebot_infrastructure::FileTaskStore::new(task_dir),
            ))
        },
        |web| web,
    )
    .await;
    let call = |id: &str, tool: &str, args: &str| {
        ScriptedResponse::tool_calls([ToolCallSpec::new(id, tool, args)])
            .delay_before(Duration::from_millis(700))
    };
    s.model.push_all([
        call("c1", "AddTask", r#"{"title":"Write the notes"}"#),
        call(
            "c2",
            "AddTask",
            r#"{"title":"Review them","dependsOn":["1"]}"#,
        ),
        call("c3", "StartTask", r#"{"taskId":"1"}"#),
        call("c4", "GetCurrentTime", "{}"),
        ScriptedResponse::text("Working on it.").delay_before(Duration::from_millis(700)),
    ]);
    let page = open_page(&s, &browser).await;
    assert_eq!(
        eval(&page, "document.getElementById('tasks').hidden").await,
        true
    );
    click(&page, "#tasks-toggle").await;
    assert_eq!(
        eval(&page, "document.getElementById('tasks').hidden").await,
        false
    );
    send(&page, "plan and write the notes").await;
    // The plan changes while the turn runs, step by step.
    wait_for(
        &page,
        "document.getElementById('plan').textContent.includes('Write the notes')",
    )
    .await;
    assert_eq!(
        eval(&page, "document.getElementById('stop').hidden").await,
        false,
        "still running"
    );
    wait_for(
        &page,
        "document.getElementById('plan').textContent.includes('Review them')",
    )
    .await;
    screenshot(&page, "task-drawer-running").await;
    // The task in progress records the tool calls made while it runs.
    wait_for(
        &page,
        "document.getElementById('plan').textContent.includes('GetCurrentTime')",
    )
    .await;
    // Rendered from the plan's fields: each task's status, dependencies and tools.
    assert_eq!(
        eval(
            &page,
            "document.querySelector('#plan .progress').textContent"
        )
        .await,
        "Progress: 0/2 (0.0%)"
    );
    assert_eq!(
        eval(
            &page,
            "document.querySelector('#plan li[data-task-id=\"1\"]').dataset.status"
        )
        .await,
        "in_progress"
    );
    assert_eq!(
        eval(
            &page,
            "document.querySelector('#plan li[data-task-id=\"2\"] .depends').textContent"
        )
        .await,
        " (depends on: 1)"
    );
    assert_eq!(
        eval(
            &page,
            "document.querySelector('#plan li[data-task-id=\"1\"] .tools').textContent"
        )
        .await,
        "Tools: GetCurrentTime (1 call)"
    );
    wait_for(&page, "!document.getElementById('input').disabled").await;
    // Reloaded from storage after the turn: the plan is still shown, from the same
    // fields.
    assert_eq!(
        eval(
            &page,
            "document.querySelector('#plan li[data-task-id=\"2\"]').dataset.status"
        )
        .await,
        "pending"
    );
    let plan = eval(&page, "document.getElementById('plan').textContent").await;
    let plan = plan.as_str().unwrap();
    assert!(
        plan.contains("Write the notes") && plan.contains("Review them"),
        "{plan}"
    );
    screenshot(&page, "task-drawer").await;
    browser.close().await;
}

#[tokio::test]
async fn the_confirmation_dialog_approves_and_denies_commands() {
    let Some(browser) = Chromium::start("confirmation dialog").await else {
        return;
    };
    let (s, _workspace) = Server::with_confirmed_shell(Duration::from_secs(20)).await;
    let shell = |call: &str, command: &str| {
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            call,
            "ExecuteCommand",
            serde_json::json!({ "command": command }).to_string(),
        )])
    };
    s.model.push_all([
        shell("c1", "echo 'allowed <b>by</b> the person'"),
        shell("c2", "echo refused"),
        ScriptedResponse::text("Done."),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "run two commands").await;
    wait_for(&page, "!document.getElementById('confirm-dialog').hidden").await;
    // The command is shown as text, markup and all.
    assert_eq!(
        eval(
            &page,
            "document.getElementById('confirm-command').textContent"
        )
        .await,
        "echo 'allowed <b>by</b> the person'"
    );
    screenshot(&page, "confirmation").await;
    click(&page, "#confirm-approve").await;
    wait_for(
        &page,
        "document.querySelector('[data-call-id=\"c1\"]')?.classList.contains('ok')",
    )
    .await;
    wait_for(&page, "!document.getElementById('confirm-dialog').hidden && document.getElementById('confirm-command').textContent === 'echo refused'").await;
    click(&page, "#confirm-deny").await;
    wait_for(
        &page,
        "document.querySelector('[data-call-id=\"c2\"]')?.classList.contains('denied')",
    )
    .await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    assert_eq!(
        eval(&page, "document.getElementById('confirm-dialog').hidden").await,
        true
    );
    let approved = eval(
        &page,
        "document.querySelector('[data-call-id=\"c1\"] .result').textContent",
    )
    .await;
    assert!(
        approved
            .as_str()
            .unwrap()
            .contains("allowed <b>by</b> the person"),
        "{approved}"
    );
    screenshot(&page, "confirmation-answered").await;
    browser.close().await;
}

#[tokio::test]
async fn the_page_asks_for_a_token_once_and_keeps_it_out_of_scripts_reach() {
    let Some(browser) = Chromium::start("sign in").await else {
        return;
    };
    let (s, token) = Server::with_one_user().await;
    let page = browser.open(&format!("{}/", s.base)).await;
    wait_for(&page, "!document.getElementById('login').hidden").await;
    assert_eq!(
        eval(&page, "document.getElementById('chat').hidden").await,
        true
    );
    type_into(&page, "#token", "not-a-token").await;
    click(&page, "#sign-in").await;
    wait_for(
        &page,
        "document.getElementById('login-error').textContent.length > 0",
    )
    .await;
    eval(&page, "document.getElementById('token').value = ''").await;
    type_into(&page, "#token", &token).await;
    click(&page, "#sign-in").await;
    wait_for(
        &page,
        "document.getElementById('login').hidden && !document.getElementById('input').disabled",
    )
    .await;
    // The token lives in an HttpOnly cookie: page scripts cannot read it.
    assert_eq!(
        eval(&page, "document.cookie.includes('smallebot_token')").await,
        false
    );
    // Reloading the page needs no new sign-in.
    reload(&page).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    assert_eq!(
        eval(&page, "document.getElementById('login').hidden").await,
        true
    );
    screenshot(&page, "signed-in").await;
    browser.close().await;
}
