//! Compression made visible in headless Chromium: a card "Earlier turns summarized"
//! opens the summary (shown as text), the summarized rows folded under it.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, open_page, screenshot, wait_for};
use common::Server;
use reqwest::StatusCode;
use smallebot_testkit::ScriptedResponse;

#[tokio::test]
async fn the_summary_card_opens_the_summary_and_folds_the_summarized_rows() {
    let Some(browser) = Chromium::start("summary card").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| {
        ScriptedResponse::text(
            "SUMMARY <img src=x onerror=\"document.title='pwned'\"> of the early turns",
        )
    });
    let id = s.create().await;
    // Questions long enough that the summary makes the context smaller (a summary
    // that would not is refused).
    for text in ["first question", "second question", "third question"] {
        s.turn(&id, &format!("{text}: {}", "more detail ".repeat(40)))
            .await;
    }
    let compacted = reqwest::Client::new()
        .post(s.url(&format!("/api/conversations/{id}/compact")))
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(compacted.status(), StatusCode::OK);
    let page = open_page(&s, &browser).await;
    wait_for(
        &page,
        "document.querySelector('#messages .summary-card') !== null",
    )
    .await;
    // Folded: the summary and the summarized rows are closed, later rows show.
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('.summary-card details')].map((d) => d.open)"
        )
        .await,
        serde_json::json!([false, false])
    );
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('#messages .message.summarized')].every((m) => m.closest('.summarized-list') !== null && !m.checkVisibility())"
        )
        .await,
        true
    );
    assert!(
        eval(
            &page,
            "document.querySelectorAll('#messages > .message').length"
        )
        .await
        .as_i64()
        .unwrap()
            > 0
    );
    click(&page, ".summary-card .summary-text summary").await;
    wait_for(
        &page,
        "document.querySelector('.summary-card .summary-body').checkVisibility() \
         && document.querySelector('.summary-card .summary-body').textContent.includes('<img src=x')",
    )
    .await;
    assert_eq!(
        eval(
            &page,
            "document.querySelectorAll('.summary-card img').length"
        )
        .await,
        0
    );
    click(&page, ".summary-card .summarized-rows summary").await;
    wait_for(
        &page,
        "document.querySelector('#messages .message.summarized').checkVisibility()",
    )
    .await;
    screenshot(&page, "summary-card").await;
    assert_ne!(eval(&page, "document.title").await, "pwned");
    browser.close().await;
}
