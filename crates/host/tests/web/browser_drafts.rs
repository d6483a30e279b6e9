//! A new conversation in headless Chromium is stored with its first message: "New
//! conversation" stores nothing, so the list never fills with empty rows.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, open_page, screenshot, send, wait_for};
use common::Server;
use smallebot_testkit::ScriptedResponse;

#[tokio::test]
async fn new_conversation_is_stored_with_its_first_message() {
    let Some(browser) = Chromium::start("new conversation stored with its message").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let page = open_page(&s, &browser).await;
    click(&page, "#new-conversation").await;
    click(&page, "#new-conversation").await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    assert_eq!(
        s.get_json("/api/conversations").await,
        serde_json::json!([])
    );
    assert_eq!(
        eval(
            &page,
            "document.querySelectorAll('#conversations li').length"
        )
        .await,
        0
    );
    send(&page, "plan a trip to Oslo").await;
    wait_for(
        &page,
        "location.pathname.startsWith('/c/') \
         && document.querySelector('.message.assistant')?.textContent.includes('answer') \
         && document.querySelectorAll('#conversations li').length === 1",
    )
    .await;
    let listed = s.get_json("/api/conversations").await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    let id = listed[0]["id"].as_str().unwrap();
    assert_eq!(eval(&page, "location.pathname").await, format!("/c/{id}"));
    assert!(
        eval(&page, "document.querySelector('.message.user').textContent")
            .await
            .as_str()
            .unwrap()
            .contains("plan a trip to Oslo")
    );
    // New again: the open one stays in the list, no second row appears until a send.
    click(&page, "#new-conversation").await;
    wait_for(
        &page,
        "location.pathname === '/' && document.querySelectorAll('#messages > *').length === 0",
    )
    .await;
    assert_eq!(
        s.get_json("/api/conversations")
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
    screenshot(&page, "new-conversation-draft").await;
    browser.close().await;
}
