//! The page in headless Chromium, acting on a conversation: compacting, undo, the
//! compression indicator, edit and regenerate. Each test drives what a person does
//! against a real server and the scripted model, and saves a screenshot under
//! `target/ui-screenshots/`. (The task drawer, command confirmations and signing in
//! are in `browser_access.rs`.)

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, open_page, screenshot, send, type_into, wait_for};
use common::Server;
use smallebot_testkit::{Gate, ScriptedResponse};

#[tokio::test]
async fn the_compact_button_summarizes_with_a_focus_while_input_waits() {
    let Some(browser) = Chromium::start("compact button").await else {
        return;
    };
    let s = Server::start().await;
    // The summary is held until the page was seen waiting for it.
    let summary_held = Gate::new();
    let held = summary_held.clone();
    s.script_roles(move |_| ScriptedResponse::text("SUMMARY of the early turns").hold_until(&held));
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
    summary_held.open();
    wait_for(&page, "document.getElementById('compressing').hidden && !document.getElementById('input').disabled").await;
    // The oldest turn is now summarized (shown dimmed), and the focus reached the model.
    wait_for(
        &page,
        "document.querySelector('.message.summarized') !== null",
    )
    .await;
    let summarizer = s.turn_requests().pop().unwrap();
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
async fn the_undo_button_strikes_the_last_turn_out_of_the_context() {
    let Some(browser) = Chromium::start("undo button").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let id = s.create().await;
    for text in ["keep this question", "drop this question"] {
        s.turn(&id, text).await;
    }
    let page = open_page(&s, &browser).await;
    click(&page, "#undo").await;
    // The last turn's two messages are struck through; the first turn's are not.
    wait_for(
        &page,
        "document.querySelectorAll('.message.undone').length === 2",
    )
    .await;
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('.message.undone')].some(m => m.textContent.includes('drop this question'))"
        )
        .await,
        true
    );
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('.message.undone')].some(m => m.textContent.includes('keep this question'))"
        )
        .await,
        false
    );
    screenshot(&page, "undone").await;
    // Undo twice more: the second leaves nothing, and the page says so.
    click(&page, "#undo").await;
    wait_for(
        &page,
        "document.querySelectorAll('.message.undone').length === 4",
    )
    .await;
    click(&page, "#undo").await;
    wait_for(
        &page,
        "document.getElementById('error').textContent.includes('Nothing to undo')",
    )
    .await;
    browser.close().await;
}

#[tokio::test]
async fn input_is_enabled_again_when_a_compression_fails() {
    let Some(browser) = Chromium::start("failed compression").await else {
        return;
    };
    // A small window, so that the fourth turn must compress; the summarizer fails.
    let s = Server::start_custom(
        |agent| {
            agent.history(smallebot_agent::history::HistorySettings {
                context_window: 600,
                ..smallebot_agent::history::HistorySettings::default()
            })
        },
        |web| web,
    )
    .await;
    // The summarizer's failure is held until the page was seen waiting for it.
    let failure_held = Gate::new();
    let held = failure_held.clone();
    s.script_roles(move |_| ScriptedResponse::server_error(500).hold_until(&held));
    let id = s.create().await;
    let filler = "and more words ".repeat(50);
    for text in ["first question", "second question", "third question"] {
        s.turn(&id, &format!("{text} {filler}")).await;
    }
    let page = open_page(&s, &browser).await;
    send(&page, "fourth question").await;
    wait_for(&page, "!document.getElementById('compressing').hidden").await;
    assert_eq!(
        eval(&page, "document.getElementById('input').disabled").await,
        true
    );
    failure_held.open();
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
        s.turn_requests().last().unwrap().last_user_text().unwrap(),
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
