//! Export in headless Chromium: the open conversation's menu has links downloading it
//! as Markdown and as JSON (`GET /api/conversations/{id}/export?format=md|json`).

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, eval, open_page, wait_for};
use common::Server;
use smallebot_testkit::ScriptedResponse;

#[tokio::test]
async fn the_open_conversation_downloads_as_markdown_and_json() {
    let Some(browser) = Chromium::start("export links").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let id = s.create().await;
    s.turn(&id, "export <script>me</script>").await;
    let page = open_page(&s, &browser).await;
    wait_for(&page, "!document.getElementById('export').hidden").await;
    let links = eval(
        &page,
        "[...document.querySelectorAll('#export a')].map((a) => [a.getAttribute('href'), a.hasAttribute('download'), a.getAttribute('aria-label')])",
    )
    .await;
    assert_eq!(
        links,
        serde_json::json!([
            [
                format!("/api/conversations/{id}/export?format=md"),
                true,
                "Export as Markdown"
            ],
            [
                format!("/api/conversations/{id}/export?format=json"),
                true,
                "Export as JSON"
            ],
        ])
    );
    // What the links download: the conversation, as the page is signed in.
    let fetched = eval(
        &page,
        "(async () => Promise.all([...document.querySelectorAll('#export a')].map(async (a) => { \
           const r = await fetch(a.href); \
           return [r.status, r.headers.get('content-type'), r.headers.get('content-disposition'), await r.text()]; })))()",
    )
    .await;
    let md = &fetched[0];
    assert_eq!(md[0], 200);
    assert!(md[1].as_str().unwrap().starts_with("text/markdown"), "{md}");
    assert!(md[2].as_str().unwrap().contains("attachment"), "{md}");
    assert!(
        md[3]
            .as_str()
            .unwrap()
            .contains("export <script>me</script>"),
        "{md}"
    );
    let json: serde_json::Value = serde_json::from_str(fetched[1][3].as_str().unwrap()).unwrap();
    assert_eq!(json["conversation"]["id"], id.as_str());
    // A new conversation, not stored yet, has nothing to export.
    eval(&page, "document.getElementById('new-conversation').click()").await;
    wait_for(&page, "document.getElementById('export').hidden").await;
    browser.close().await;
}
