//! Keyboard and screen readers in headless Chromium: every control labelled, the
//! shortcuts (listed in a help dialog that takes and gives back the focus), the live
//! region saying once that an answer is done (the command question taking the focus is
//! in browser_cards.rs).

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, open_page, press_with, send, wait_for};
use common::Server;
use smallebot_testkit::ScriptedResponse;

const CTRL: i64 = 2;
const SHIFT: i64 = 8;

#[tokio::test]
async fn shortcuts_work_from_the_keyboard_and_are_listed_in_a_help_dialog() {
    let Some(browser) = Chromium::start("keyboard").await else {
        return;
    };
    let s = Server::start().await;
    s.model.push_all([ScriptedResponse::text("Answered.")]);
    let page = open_page(&s, &browser).await;
    // Every control has a name a screen reader can say.
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('button, input, select, textarea')] \
             .filter((e) => !(e.textContent.trim() || e.getAttribute('aria-label') || \
               (e.id && document.querySelector(`label[for=\"${e.id}\"]`)))) \
             .map((e) => e.id || e.outerHTML.slice(0, 60))"
        )
        .await,
        serde_json::json!([])
    );
    // The stream is not a live region; the announcer says the answer is done, once.
    assert_eq!(
        eval(
            &page,
            "document.getElementById('messages').getAttribute('aria-live')"
        )
        .await,
        serde_json::Value::Null
    );
    send(&page, "a question").await;
    wait_for(
        &page,
        "document.getElementById('announcer').textContent === 'The answer is complete.'",
    )
    .await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    // ? opens the help (focus inside); closed, it gives the focus back.
    eval(&page, "document.getElementById('new-conversation').focus()").await;
    press_with(&page, "?", "Slash", SHIFT).await;
    wait_for(&page, "document.getElementById('help-dialog').open").await;
    assert_eq!(
        eval(
            &page,
            "document.getElementById('help-dialog').contains(document.activeElement)"
        )
        .await,
        true
    );
    click(&page, "#help-close").await;
    wait_for(&page, "!document.getElementById('help-dialog').open").await;
    assert_eq!(
        eval(&page, "document.activeElement.id").await,
        "new-conversation"
    );
    // Ctrl+K: the search box.
    press_with(&page, "k", "KeyK", CTRL).await;
    wait_for(&page, "document.activeElement.id === 'search'").await;
    // ↑ in the empty message box edits the last message.
    eval(&page, "document.getElementById('input').focus()").await;
    press_with(&page, "ArrowUp", "ArrowUp", 0).await;
    wait_for(
        &page,
        "document.querySelector('textarea.edit-text') !== null",
    )
    .await;
    // Ctrl+Shift+O: a new conversation.
    eval(&page, "document.body.focus()").await;
    press_with(&page, "O", "KeyO", CTRL | SHIFT).await;
    wait_for(
        &page,
        "location.pathname === '/' && document.querySelectorAll('#messages > *').length === 0",
    )
    .await;
    browser.close().await;
}
