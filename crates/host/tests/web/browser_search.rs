//! Search hits in headless Chromium: the snippet built from the marked parts (each a
//! text node or a `<mark>`, never HTML), and a hit opening `/c/{id}#{seq}` at its row.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, open_page, screenshot, type_into, wait_for};
use common::Server;
use smallebot_testkit::ScriptedResponse;

#[tokio::test]
async fn a_hit_shows_its_marked_snippet_as_text_and_opens_at_its_row() {
    let Some(browser) = Chromium::start("search snippets").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let old = s.create().await;
    s.turn(&old, "first words of nothing").await;
    s.turn(
        &old,
        "<img src=x onerror=\"document.title='pwned'\"> where did I park the zeppelin today",
    )
    .await;
    s.turn(&old, "a later turn").await;
    let page = open_page(&s, &browser).await;
    type_into(&page, "#search", "zeppelin").await;
    wait_for(
        &page,
        "document.querySelector('#search-results .hit mark')?.textContent === 'zeppelin'",
    )
    .await;
    let snippet = eval(
        &page,
        "document.querySelector('#search-results .hit .hit-snippet').textContent",
    )
    .await;
    assert!(
        snippet.as_str().unwrap().contains("<img src=x"),
        "the markup is shown as text: {snippet}"
    );
    assert_eq!(
        eval(
            &page,
            "document.querySelectorAll('#search-results img, #search-results .hit-snippet *:not(mark)').length"
        )
        .await,
        0
    );
    let listed = s.get_json("/api/search?q=zeppelin").await;
    let seq = listed[0]["seq"].as_i64().unwrap();
    assert_eq!(
        eval(
            &page,
            "document.querySelector('#search-results .hit').getAttribute('href')"
        )
        .await,
        format!("/c/{old}#{seq}")
    );
    screenshot(&page, "search-snippet").await;
    click(&page, "#search-results .hit").await;
    wait_for(
        &page,
        &format!(
            "location.pathname === '/c/{old}' && location.hash === '#{seq}' \
             && document.querySelector('#messages .marked')?.dataset.seq === '{seq}' \
             && document.querySelector('#messages .marked').textContent.includes('park the zeppelin')"
        ),
    )
    .await;
    assert_ne!(eval(&page, "document.title").await, "pwned");
    browser.close().await;
}
