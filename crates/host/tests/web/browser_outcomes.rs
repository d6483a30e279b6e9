//! How turns ended, as stored, in headless Chromium: a failed turn shows its error with
//! a Retry button and a stopped answer is marked — also after a reload, from the
//! timeline's `turns`.

use crate::browser_support;
use crate::common;

use browser_support::{
    Chromium, click, eval, open_page, reload, screenshot, send, send_and_stop, wait_for,
};
use common::Server;
use smallebot_testkit::{ScriptedResponse, error_body};

const FAILED: &str = "document.querySelector('.turn-failed .turn-error')?.textContent.includes('rejected the request (400)') \
     && document.querySelector('.turn-failed .retry') !== null";

#[tokio::test]
async fn a_failed_turn_keeps_its_error_and_retry_and_a_stopped_answer_its_mark() {
    let Some(browser) = Chromium::start("turn outcomes after a reload").await else {
        return;
    };
    let s = Server::start().await;
    s.model.push(ScriptedResponse::http_error(
        400,
        error_body("model says no", "invalid_request_error", None, None),
    ));
    let page = open_page(&s, &browser).await;
    send(&page, "please fail").await;
    wait_for(&page, FAILED).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    // Stored: a reload shows the error and Retry again.
    reload(&page).await;
    wait_for(&page, FAILED).await;
    screenshot(&page, "failed-turn").await;
    s.model.push(ScriptedResponse::text("Recovered."));
    click(&page, ".turn-failed .retry").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('Recovered.') \
         && document.querySelector('.turn-failed') === null",
    )
    .await;

    // A stopped answer stays marked after a reload.
    send_and_stop(&s, &page, "talk long").await;
    reload(&page).await;
    wait_for(
        &page,
        "document.querySelectorAll('.message.assistant.rendered').length === 2",
    )
    .await;
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('.message.assistant.rendered')].map((b) => b.classList.contains('stopped'))"
        )
        .await,
        serde_json::json!([false, true])
    );
    browser.close().await;
}
