//! Tool cards by kind and the states of a turn, in headless Chromium: a command as a
//! terminal block, a file write as path and content, reads folded to one line, every
//! card collapsible, the command question taking and giving back the focus; the Retrying line, a stopped answer, a send that never reached the
//! server.

use crate::browser_support;
use crate::common;

use std::time::Duration;

use browser_support::{
    Chromium, click, eval, open_page, screenshot, send, send_and_stop, wait_for,
};
use common::Server;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

#[tokio::test]
async fn a_command_is_a_terminal_block_and_a_write_shows_its_file() {
    let Some(browser) = Chromium::start("cards by kind").await else {
        return;
    };
    let (s, _workspace) = Server::with_confirmed_shell(Duration::from_secs(20)).await;
    s.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "c1",
            "ExecuteCommand",
            r#"{"command":"echo hello-from-the-shell"}"#,
        )]),
        ScriptedResponse::text("Ran it."),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "run echo").await;
    wait_for(&page, "!document.getElementById('confirm-dialog').hidden").await;
    // The question takes the focus (on Deny), and gives it back once answered (to Stop
    // while the turn runs on, the message box being closed).
    wait_for(&page, "document.activeElement.id === 'confirm-deny'").await;
    click(&page, "#confirm-approve").await;
    wait_for(
        &page,
        "['stop', 'input'].includes(document.activeElement.id)",
    )
    .await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('Ran it.')",
    )
    .await;
    let card = "document.querySelector('[data-call-id=\"c1\"]')";
    let shown = eval(
        &page,
        &format!(
            "[{card}.classList.contains('kind-command'), {card}.open, \
             {card}.querySelector('.command-line').textContent, \
             {card}.querySelector('.result').textContent.trim(), \
             {card}.querySelector('.exit').textContent.startsWith('exit code: 0')]"
        ),
    )
    .await;
    assert_eq!(
        shown,
        serde_json::json!([
            true,
            true,
            "echo hello-from-the-shell",
            "hello-from-the-shell",
            true
        ])
    );
    // Every card folds.
    click(&page, "[data-call-id=\"c1\"] summary").await;
    assert_eq!(eval(&page, &format!("{card}.open")).await, false);
    screenshot(&page, "command-card").await;
    browser.close().await;

    let Some(browser) = Chromium::start("file cards").await else {
        return;
    };
    let (s, _workspace) = Server::with_workspace(&[("notes.md", "old notes")]).await;
    s.model.push_all([
        ScriptedResponse::tool_calls([
            ToolCallSpec::new(
                "w1",
                "WriteFile",
                r##"{"path":"plan.md","content":"# Plan\n- one"}"##,
            ),
            ToolCallSpec::new("r1", "ReadFile", r#"{"path":"notes.md"}"#),
            ToolCallSpec::new("s1", "ReadSkill", r#"{"name":"csv-summary"}"#),
            ToolCallSpec::new(
                "g1",
                "GenerateSkill",
                r#"{"name":"release-notes","description":"Drafts release notes.","body":"Collect the changes."}"#,
            ),
        ]),
        ScriptedResponse::text("Wrote and read."),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "write and read").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('Wrote and read.')",
    )
    .await;
    let write = "document.querySelector('[data-call-id=\"w1\"]')";
    assert_eq!(
        eval(
            &page,
            &format!(
                "[{write}.open, {write}.querySelector('.file-path').textContent, \
                 {write}.querySelector('.file-content').textContent]"
            )
        )
        .await,
        serde_json::json!([true, "plan.md", "# Plan\n- one"])
    );
    // A read is one line (the tool, the path, "show"), its arguments pretty-printed.
    let read = "document.querySelector('[data-call-id=\"r1\"]')";
    assert_eq!(
        eval(
            &page,
            &format!(
                "[{read}.open, {read}.querySelector('summary').getBoundingClientRect().height < 40, \
                 {read}.querySelector('.subject').textContent, \
                 getComputedStyle({read}.querySelector('.fold-hint'), '::after').content]"
            )
        )
        .await,
        serde_json::json!([false, true, "notes.md", "\"show\""])
    );
    click(&page, "[data-call-id=\"r1\"] summary").await;
    assert_eq!(
        eval(
            &page,
            &format!("{read}.querySelector('.arguments').textContent")
        )
        .await,
        "{\n  \"path\": \"notes.md\"\n}"
    );
    assert_eq!(
        eval(
            &page,
            &format!("{read}.querySelector('.result').textContent.includes('old notes')")
        )
        .await,
        true
    );
    // The skill tools' cards name the skill.
    assert_eq!(
        eval(
            &page,
            "['s1', 'g1'].map(id => document.querySelector(`[data-call-id=\"${id}\"] .subject`).textContent)"
        )
        .await,
        serde_json::json!(["csv-summary", "release-notes"])
    );
    screenshot(&page, "file-cards").await;
    browser.close().await;
}

#[tokio::test]
async fn retries_stops_and_unsent_messages_are_shown() {
    let Some(browser) = Chromium::start("turn states").await else {
        return;
    };
    let s = Server::start().await;
    s.model.push_all([
        ScriptedResponse::text("a first try that breaks off")
            .chunk_size(4)
            .cut_after_chunks(2),
        ScriptedResponse::text("After the retry."),
    ]);
    let page = open_page(&s, &browser).await;
    // (the line may be gone before a poll sees it: an observer keeps what it said)
    eval(
        &page,
        "(() => { window.__retries = []; new MutationObserver(() => { \
           const line = document.querySelector('#messages .retrying'); \
           if (line) window.__retries.push(line.textContent); }) \
         .observe(document.getElementById('messages'), { childList: true, subtree: true, characterData: true }); \
         return true; })()",
    )
    .await;
    send(&page, "first try").await;
    // The Retrying line: the attempt, the reason, a countdown.
    wait_for(&page, "window.__retries.length > 0").await;
    let line = eval(&page, "window.__retries[0]").await;
    let line = line.as_str().unwrap();
    assert!(line.contains("attempt 2 of"), "{line}");
    assert!(line.contains(" s"), "{line}");
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('After the retry.')",
    )
    .await;
    assert_eq!(
        eval(
            &page,
            "document.querySelector('#messages .retrying') === null"
        )
        .await,
        true
    );
    // A stopped answer is marked.
    send_and_stop(&s, &page, "talk long").await;
    // A send that never reaches the server keeps the text, with the error.
    eval(
        &page,
        "(() => { const real = window.fetch; window.fetch = (url, init) => \
         (String(url).endsWith('/messages') ? Promise.reject(new TypeError('Failed to fetch')) : real(url, init)); return true; })()",
    )
    .await;
    send(&page, "never arrives").await;
    wait_for(
        &page,
        "document.getElementById('error').textContent.startsWith('Not sent')",
    )
    .await;
    assert_eq!(
        eval(&page, "document.getElementById('input').value").await,
        "never arrives"
    );
    assert_eq!(
        eval(&page, "[...document.querySelectorAll('.message.user')].some((m) => m.textContent.includes('never arrives'))").await,
        false
    );
    screenshot(&page, "turn-states").await;
    browser.close().await;
}
