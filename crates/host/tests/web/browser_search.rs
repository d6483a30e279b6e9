//! Search hits in headless Chromium: the snippet built from the marked parts (each a
//! text node or a `<mark>`, never HTML), a hit opening `/c/{id}#{seq}` at its row, and
//! an answer to an earlier search that comes late never replacing the latest one's.

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

#[tokio::test]
async fn a_late_answer_to_an_earlier_search_never_replaces_the_latest() {
    let Some(browser) = Chromium::start("search answers out of order").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let old = s.create().await;
    s.turn(&old, "where did I park the zeppelin").await;
    let page = open_page(&s, &browser).await;
    // The answer to the search for "zep" (no match: words are matched whole) is held
    // back, as a slow server's would be, until the one for "zeppelin" is shown.
    eval(
        &page,
        "(() => { const real = window.fetch; window.fetch = async (url, init) => { \
           const answer = await real(url, init); \
           if (String(url).endsWith('q=zep')) { \
             window.lateHeld = true; \
             while (!window.releaseLate) await new Promise((done) => setTimeout(done, 20)); \
             setTimeout(() => { window.lateShown = true; }, 300); } \
           return answer; }; return true; })()",
    )
    .await;
    type_into(&page, "#search", "zep").await;
    wait_for(&page, "window.lateHeld === true").await;
    type_into(&page, "#search", "pelin").await;
    wait_for(
        &page,
        "document.querySelector('#search-results .hit mark')?.textContent === 'zeppelin'",
    )
    .await;
    eval(&page, "window.releaseLate = true").await;
    wait_for(&page, "window.lateShown === true").await;
    // The late "zep" answer came and was dropped: the list still shows the hit.
    assert_eq!(
        eval(
            &page,
            "document.querySelector('#search-results .hit mark')?.textContent \
             ?? document.getElementById('search-results').textContent"
        )
        .await,
        "zeppelin"
    );
    browser.close().await;
}

#[tokio::test]
async fn typing_in_the_search_box_right_after_new_conversation_keeps_the_focus_there() {
    let Some(browser) = Chromium::start("search focus after new conversation").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let old = s.create().await;
    s.turn(&old, "where did I park the zeppelin").await;
    let page = open_page(&s, &browser).await;
    // The list's reload after "New conversation" is held back until the search box has
    // been typed into, as on a slow server.
    eval(
        &page,
        "(() => { const real = window.fetch; window.fetch = async (url, init) => { \
           if (String(url) === '/api/conversations' && window.holdList) { \
             while (window.holdList) await new Promise((done) => setTimeout(done, 20)); } \
           return real(url, init); }; window.holdList = true; return true; })()",
    )
    .await;
    click(&page, "#new-conversation").await;
    wait_for(&page, "location.pathname === '/'").await;
    type_into(&page, "#search", "zeppelin").await;
    eval(&page, "window.holdList = false").await;
    wait_for(
        &page,
        "document.querySelector('#search-results .hit mark')?.textContent === 'zeppelin'",
    )
    .await;
    assert_eq!(eval(&page, "document.activeElement.id").await, "search");
    assert_eq!(
        eval(&page, "document.getElementById('search').value").await,
        "zeppelin"
    );
    browser.close().await;
}
