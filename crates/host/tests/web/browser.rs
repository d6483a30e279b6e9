//! The page in headless Chromium, chatting: sending, the streamed answer, tool cards,
//! hostile markup, Stop, reasoning, long results, search. Each test drives what a
//! person does against a real server and the scripted model, and saves a screenshot
//! under `target/ui-screenshots/`.

use crate::browser_support;
use crate::common;

use std::time::Duration;

use browser_support::{
    Chromium, click, eval, open_page, press, screenshot, send, shift_enter, type_into, wait_for,
};
use common::Server;
use smallebot_testkit::{Gate, ScriptedResponse, ToolCallSpec};

#[tokio::test]
async fn a_message_is_sent_with_enter_and_the_answer_streams_in_as_markdown() {
    let Some(browser) = Chromium::start("streamed answer").await else {
        return;
    };
    let s = Server::start().await;
    // The answer pauses after a few pieces until the page was seen mid-answer.
    let rest = Gate::new();
    s.model.push_all([ScriptedResponse::text(
        "Here is **bold** text and `code`, streamed in small pieces.",
    )
    .chunk_size(3)
    .delay_between(Duration::from_millis(40))
    .pause_after_chunks(4, &rest)]);
    s.answer_titles_with("Greeting");
    // (a stored conversation: a new one is stored with its first message)
    s.create().await;
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
    rest.open();
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
        s.turn_requests()[0].last_user_text().unwrap(),
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
    s.model
        .push_all([ScriptedResponse::text(hostile).chunk_size(7)]);
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
    s.model.push_all([ScriptedResponse::text(long.clone())
        .chunk_size(5)
        .delay_between(Duration::from_millis(50))]);
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
async fn reasoning_is_shown_collapsed() {
    let Some(browser) = Chromium::start("reasoning").await else {
        return;
    };
    let s = Server::start().await;
    s.model
        .push_all([ScriptedResponse::text("The answer.")
            .with_reasoning("Let me think about this carefully.")]);
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
async fn shift_enter_starts_a_new_line_and_enter_sends_both() {
    let Some(browser) = Chromium::start("shift enter").await else {
        return;
    };
    let s = Server::start().await;
    s.model
        .push_all([ScriptedResponse::text("Two lines received.")]);
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
        s.turn_requests()[0].last_user_text().unwrap(),
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
    let full = "x".repeat(2000);
    let (s, _workspace) = Server::with_workspace(&[("long.txt", &full)]).await;
    s.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new("c1", "GetCurrentTime", "{}")])
            .usage(5_000, 10),
        ScriptedResponse::text("Done.").usage(6_000, 3),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "what time is it?").await;
    wait_for(
        &page,
        // The stored answer rendered: the refresh after the turn is done, so nothing
        // re-renders the timeline under what follows.
        "!document.getElementById('input').disabled && document.querySelector('.tool.ok') !== null \
         && document.querySelector('.message.assistant.rendered') !== null",
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
    // A long result is cut until "show all".
    s.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "c9",
            "ReadFile",
            r#"{"path":"long.txt"}"#,
        )]),
        ScriptedResponse::text("Read."),
    ]);
    send(&page, "read long.txt").await;
    // Once the turn is done and its stored answer drawn: the refresh after the turn
    // redraws the cards, so a card opened before it would be drawn again, cut.
    wait_for(
        &page,
        "document.querySelector('[data-call-id=\"c9\"] .show-all') !== null \
         && !document.getElementById('input').disabled \
         && [...document.querySelectorAll('.message.assistant.rendered')] \
            .some((m) => m.textContent.includes('Read.'))",
    )
    .await;
    // A read folds to one line: opened first.
    click(&page, "[data-call-id=\"c9\"] summary").await;
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
            &format!(
                "document.querySelector('[data-call-id=\"c9\"] .result').textContent.includes('{full}')"
            )
        )
        .await,
        true
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
    wait_for(&page, "location.pathname === '/'").await;
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
