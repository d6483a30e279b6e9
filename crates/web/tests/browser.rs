//! The page in headless Chromium against a real server and the scripted model: each
//! test drives what a person does and saves a screenshot under
//! `target/ui-screenshots/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod browser_support;
mod common;

use std::time::Duration;

use browser_support::{Chromium, click, eval, press, screenshot, shift_enter, type_into, wait_for};
use common::Server;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

/// The page of a fresh server, ready for input (it opened a new conversation).
async fn open_page(s: &Server, browser: &Chromium) -> chromiumoxide::Page {
    let page = browser.open(&format!("{}/", s.base)).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    page
}

async fn send(page: &chromiumoxide::Page, text: &str) {
    type_into(page, "#input", text).await;
    press(page, "#input", "Enter").await;
}

#[tokio::test]
async fn a_message_is_sent_with_enter_and_the_answer_streams_in_as_markdown() {
    let Some(browser) = Chromium::start("streamed answer").await else {
        return;
    };
    let s = Server::start().await;
    s.model.push_all([
        ScriptedResponse::text("Here is **bold** text and `code`, streamed in small pieces.")
            .chunk_size(3)
            .delay_between(Duration::from_millis(40)),
        ScriptedResponse::text("Greeting"),
    ]);
    let page = open_page(&s, &browser).await;
    // The usage bar is filled from the timeline before any turn ran.
    assert_eq!(
        eval(
            &page,
            "document.getElementById('usage-text').textContent.endsWith('of 128000')"
        )
        .await,
        true
    );
    send(&page, "hello browser").await;
    // While it streams: plain text in a streaming bubble, Stop offered, input blocked.
    wait_for(
        &page,
        "document.querySelector('.message.assistant.streaming')?.textContent.length > 0",
    )
    .await;
    assert_eq!(
        eval(&page, "document.getElementById('stop').hidden").await,
        false
    );
    assert_eq!(
        eval(&page, "document.getElementById('input').disabled").await,
        true
    );
    // Once done: the stored answer rendered as Markdown, input open again.
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered strong')?.textContent === 'bold'",
    )
    .await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    assert_eq!(
        eval(
            &page,
            "document.querySelector('.message.assistant.rendered code')?.textContent"
        )
        .await,
        "code"
    );
    assert_eq!(
        eval(
            &page,
            "document.querySelector('.message.user')?.textContent.includes('hello browser')"
        )
        .await,
        true
    );
    assert_eq!(
        s.model.requests()[0].last_user_text().unwrap(),
        "hello browser"
    );
    // The title the model gave reaches the header and the list.
    wait_for(
        &page,
        "document.getElementById('title').textContent === 'Greeting'",
    )
    .await;
    screenshot(&page, "streamed-answer").await;
    browser.close().await;
}

#[tokio::test]
async fn a_tool_call_shows_as_a_card_that_completes() {
    let Some(browser) = Chromium::start("tool card").await else {
        return;
    };
    let s = Server::start().await;
    s.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new("call_1", "GetCurrentTime", "{}")]),
        ScriptedResponse::text("It is now.").delay_before(Duration::from_millis(400)),
        ScriptedResponse::text("Time"),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "what time is it?").await;
    wait_for(
        &page,
        "document.querySelector('.tool .name')?.textContent === 'GetCurrentTime'",
    )
    .await;
    wait_for(
        &page,
        "document.querySelector('.tool')?.classList.contains('ok')",
    )
    .await;
    assert_eq!(
        eval(&page, "document.querySelector('.tool .status').textContent").await,
        "ok"
    );
    assert_eq!(
        eval(
            &page,
            "document.querySelector('.tool .result').textContent.length > 0"
        )
        .await,
        true
    );
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('It is now.')",
    )
    .await;
    // After the reload from storage the card is still there, completed.
    assert_eq!(
        eval(&page, "document.querySelectorAll('.tool.ok').length").await,
        1
    );
    screenshot(&page, "tool-card").await;
    browser.close().await;
}

#[tokio::test]
async fn markup_in_an_answer_is_shown_as_text_and_never_runs() {
    let Some(browser) = Chromium::start("hostile answer").await else {
        return;
    };
    let s = Server::start().await;
    let hostile = "Look: <img src=x onerror=\"window.__xss = 1\"> and \
                   <script>window.__xss = 2</script> and <b onmouseover=\"window.__xss = 3\">bold</b>";
    s.model.push_all([
        ScriptedResponse::text(hostile).chunk_size(7),
        ScriptedResponse::text("Hostile"),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "<img src=y onerror=\"window.__xss = 4\">").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('Look:')",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(eval(&page, "window.__xss === undefined").await, true);
    assert_eq!(
        eval(&page, "document.querySelectorAll('#messages script, #messages [onerror], #messages [onmouseover]').length").await,
        0
    );
    // The user's own text is shown as typed.
    assert_eq!(
        eval(
            &page,
            "document.querySelector('.message.user').textContent.includes('<img src=y')"
        )
        .await,
        true
    );
    screenshot(&page, "hostile-answer").await;
    browser.close().await;
}

#[tokio::test]
async fn stop_cancels_the_turn_and_keeps_the_partial_answer() {
    let Some(browser) = Chromium::start("stop").await else {
        return;
    };
    let s = Server::start().await;
    let long = "word ".repeat(200);
    s.model.push_all([
        ScriptedResponse::text(long.clone())
            .chunk_size(5)
            .delay_between(Duration::from_millis(50)),
        ScriptedResponse::text("Stopped"),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "talk for a long time").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.streaming')?.textContent.length > 20",
    )
    .await;
    click(&page, "#stop").await;
    wait_for(
        &page,
        "document.getElementById('stop').hidden && !document.getElementById('input').disabled",
    )
    .await;
    // Reloaded from storage: the partial answer was kept.
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('word')",
    )
    .await;
    let kept = eval(
        &page,
        "document.querySelector('.message.assistant.rendered').textContent.trim().length",
    )
    .await;
    let kept = kept.as_u64().unwrap();
    assert!(
        kept > 0 && kept < long.trim().len() as u64,
        "kept {kept} characters"
    );
    screenshot(&page, "stopped").await;
    browser.close().await;
}

#[tokio::test]
async fn the_compact_button_summarizes_with_a_focus_while_input_waits() {
    let Some(browser) = Chromium::start("compact button").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| {
        ScriptedResponse::text("SUMMARY of the early turns")
            .delay_before(Duration::from_millis(1500))
    });
    let id = s.create().await;
    for text in ["first question", "second question", "third question"] {
        s.turn(&id, text).await;
    }
    let page = open_page(&s, &browser).await;
    type_into(&page, "#compact-focus", "pangolin husbandry").await;
    click(&page, "#compact").await;
    // While the summary is written: the indicator, and no way to type or send.
    wait_for(&page, "!document.getElementById('compressing').hidden").await;
    assert_eq!(
        eval(&page, "document.getElementById('input').disabled").await,
        true
    );
    assert_eq!(
        eval(&page, "document.getElementById('send').disabled").await,
        true
    );
    screenshot(&page, "compressing").await;
    wait_for(&page, "document.getElementById('compressing').hidden && !document.getElementById('input').disabled").await;
    // The oldest turn is now summarized (shown dimmed), and the focus reached the model.
    wait_for(
        &page,
        "document.querySelector('.message.summarized') !== null",
    )
    .await;
    let summarizer = s.model.requests().pop().unwrap();
    let prompt: String = summarizer
        .messages()
        .iter()
        .map(smallebot_testkit::message_text)
        .collect();
    assert!(prompt.contains("pangolin husbandry"));
    screenshot(&page, "compacted").await;
    browser.close().await;
}

#[tokio::test]
async fn input_is_enabled_again_when_a_compression_fails() {
    let Some(browser) = Chromium::start("failed compression").await else {
        return;
    };
    // Compress before every turn that has something to summarize; the summarizer fails.
    let s = Server::start_custom(
        |agent| {
            agent.pipeline(smallebot_application::PipelineSettings {
                compression_threshold: 0.0001,
                ..smallebot_application::PipelineSettings::default()
            })
        },
        |web| web,
    )
    .await;
    s.script_roles(|_| {
        ScriptedResponse::server_error(500).delay_before(Duration::from_millis(1200))
    });
    let id = s.create().await;
    for text in ["first question", "second question", "third question"] {
        s.turn(&id, text).await;
    }
    let page = open_page(&s, &browser).await;
    send(&page, "fourth question").await;
    wait_for(&page, "!document.getElementById('compressing').hidden").await;
    assert_eq!(
        eval(&page, "document.getElementById('input').disabled").await,
        true
    );
    wait_for(&page, "document.getElementById('compressing').hidden && !document.getElementById('input').disabled").await;
    wait_for(
        &page,
        "document.getElementById('error').textContent.includes('Compression')",
    )
    .await;
    screenshot(&page, "compression-failed").await;
    browser.close().await;
}

#[tokio::test]
async fn a_user_message_is_edited_and_an_answer_regenerated() {
    let Some(browser) = Chromium::start("edit and regenerate").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let id = s.create().await;
    s.turn(&id, "the first wording").await;
    let page = open_page(&s, &browser).await;
    wait_for(
        &page,
        "document.querySelector('.message.user .edit') !== null",
    )
    .await;
    click(&page, ".message.user .edit").await;
    wait_for(
        &page,
        "document.querySelector('textarea.edit-text') !== null",
    )
    .await;
    eval(
        &page,
        "document.querySelector('textarea.edit-text').value = 'the second wording'",
    )
    .await;
    click(&page, ".save-edit").await;
    wait_for(
        &page,
        "document.querySelector('.message.user')?.textContent.includes('the second wording')",
    )
    .await;
    wait_for(&page, "!document.getElementById('input').disabled && document.querySelector('.message.assistant.rendered') !== null").await;
    // Only the new wording is shown; the model answered it.
    assert_eq!(
        eval(
            &page,
            "document.body.innerText.includes('the first wording')"
        )
        .await,
        false
    );
    assert_eq!(
        s.model.requests().last().unwrap().last_user_text().unwrap(),
        "the second wording"
    );
    let before = eval(
        &page,
        "document.querySelector('.message.assistant.rendered').textContent",
    )
    .await;
    click(&page, ".message.assistant .regenerate").await;
    wait_for(&page, &format!(
        "!document.getElementById('input').disabled && document.querySelector('.message.assistant.rendered')?.textContent !== {before}"
    ))
    .await;
    assert_eq!(
        eval(
            &page,
            "document.querySelectorAll('.message.assistant.rendered').length"
        )
        .await,
        1
    );
    screenshot(&page, "edited-and-regenerated").await;
    browser.close().await;
}

#[tokio::test]
async fn reasoning_is_shown_collapsed() {
    let Some(browser) = Chromium::start("reasoning").await else {
        return;
    };
    let s = Server::start().await;
    s.model.push_all([
        ScriptedResponse::text("The answer.").with_reasoning("Let me think about this carefully."),
        ScriptedResponse::text("Thoughts"),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "think first").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered') !== null",
    )
    .await;
    wait_for(
        &page,
        "document.querySelector('details.reasoning') !== null",
    )
    .await;
    assert_eq!(
        eval(&page, "document.querySelector('details.reasoning').open").await,
        false
    );
    assert_eq!(
        eval(
            &page,
            "document.querySelector('details.reasoning').textContent.includes('think about this')"
        )
        .await,
        true
    );
    screenshot(&page, "reasoning").await;
    browser.close().await;
}

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
        ScriptedResponse::text("Notes"),
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
    wait_for(&page, "!document.getElementById('input').disabled").await;
    // Reloaded from storage after the turn: the plan is still shown.
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
async fn shift_enter_starts_a_new_line_and_enter_sends_both() {
    let Some(browser) = Chromium::start("shift enter").await else {
        return;
    };
    let s = Server::start().await;
    s.model.push_all([
        ScriptedResponse::text("Two lines received."),
        ScriptedResponse::text("Lines"),
    ]);
    let page = open_page(&s, &browser).await;
    type_into(&page, "#input", "line one").await;
    shift_enter(&page).await;
    page.find_element("#input")
        .await
        .unwrap()
        .type_str("line two")
        .await
        .unwrap();
    assert_eq!(
        eval(&page, "document.getElementById('input').value").await,
        "line one\nline two"
    );
    assert!(s.model.requests().is_empty(), "Shift+Enter sent nothing");
    press(&page, "#input", "Enter").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered') !== null",
    )
    .await;
    assert_eq!(
        s.model.requests()[0].last_user_text().unwrap(),
        "line one\nline two"
    );
    screenshot(&page, "shift-enter").await;
    browser.close().await;
}

#[tokio::test]
async fn long_results_are_cut_with_show_all_and_usage_is_shown() {
    let Some(browser) = Chromium::start("show all").await else {
        return;
    };
    let s = Server::start().await;
    s.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new("c1", "GetCurrentTime", "{}")])
            .usage(5_000, 10),
        ScriptedResponse::text("Done.").usage(6_000, 3),
        ScriptedResponse::text("Usage"),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "what time is it?").await;
    wait_for(
        &page,
        "!document.getElementById('input').disabled && document.querySelector('.tool.ok') !== null",
    )
    .await;
    // The context bar shows the share of the window in use.
    let width = eval(&page, "document.getElementById('usage-bar').style.width").await;
    assert!(width.as_str().unwrap().ends_with('%'), "{width}");
    assert_eq!(
        eval(
            &page,
            "document.getElementById('usage-text').textContent.includes('of 128000')"
        )
        .await,
        true
    );
    // A long result, delivered as the stream delivers one, is cut until "show all".
    eval(
        &page,
        "(() => { window.__full = 'x'.repeat(2000); return true; })()",
    )
    .await;
    eval(
        &page,
        "onEvent({type: 'ToolCallStarted', call_id: 'c9', tool_name: 'ReadFile', arguments: '{}'})",
    )
    .await;
    eval(&page, "onEvent({type: 'ToolCallCompleted', call_id: 'c9', tool_name: 'ReadFile', status: 'ok', result: window.__full})").await;
    let shown = eval(
        &page,
        "document.querySelector('[data-call-id=\"c9\"] .result').textContent.length",
    )
    .await;
    assert!(shown.as_u64().unwrap() < 700, "{shown}");
    click(&page, "[data-call-id=\"c9\"] .show-all").await;
    assert_eq!(
        eval(
            &page,
            "document.querySelector('[data-call-id=\"c9\"] .result').textContent.length"
        )
        .await,
        2_000
    );
    screenshot(&page, "show-all").await;
    browser.close().await;
}

#[tokio::test]
async fn the_search_box_finds_past_messages_and_opens_their_conversation() {
    let Some(browser) = Chromium::start("search box").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let old = s.create().await;
    s.turn(&old, "where did I park the zeppelin").await;
    let page = open_page(&s, &browser).await;
    click(&page, "#new-conversation").await;
    wait_for(
        &page,
        "document.querySelectorAll('#conversations li').length === 2",
    )
    .await;
    type_into(&page, "#search", "zeppelin").await;
    wait_for(&page, "!document.getElementById('search-results').hidden").await;
    wait_for(
        &page,
        "document.querySelector('#search-results li')?.textContent.includes('zeppelin')",
    )
    .await;
    click(&page, "#search-results li").await;
    wait_for(
        &page,
        "document.querySelector('.message.user')?.textContent.includes('park the zeppelin')",
    )
    .await;
    screenshot(&page, "search").await;
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
        ScriptedResponse::text("Commands"),
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
    use smallebot_web::auth::{TokenUsers, new_token, token_digest};

    struct OneUser(String);
    #[async_trait::async_trait]
    impl TokenUsers for OneUser {
        async fn user_for_digest(
            &self,
            digest: &str,
        ) -> Result<Option<String>, smallebot_core::RepositoryError> {
            Ok((digest == self.0).then(|| "alice".to_owned()))
        }
    }

    let Some(browser) = Chromium::start("sign in").await else {
        return;
    };
    let token = new_token();
    let users = OneUser(token_digest(&token));
    let s = Server::start_with(|web| web.users(std::sync::Arc::new(users))).await;
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
    page.reload().await.unwrap();
    wait_for(&page, "!document.getElementById('input').disabled").await;
    assert_eq!(
        eval(&page, "document.getElementById('login').hidden").await,
        true
    );
    screenshot(&page, "signed-in").await;
    browser.close().await;
}
