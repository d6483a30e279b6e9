//! Accessibility: axe-core (vendored under `fixtures/` for the tests only, by `cargo
//! xtask vendor`; never served) finds no serious or critical violation on the main
//! views, light and dark, wide and narrow, nor on the sign-in form.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, eval, open_page, prefer_scheme, send, set_viewport, wait_for};
use chromiumoxide::Page;
use common::Server;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

const AXE: &str = include_str!("fixtures/axe.min.js");

/// The serious and critical violations on `page`: rule, impact and the first elements.
async fn violations(page: &Page) -> serde_json::Value {
    if eval(page, "typeof window.axe === 'undefined'").await == serde_json::Value::Bool(true) {
        page.evaluate(AXE).await.unwrap();
    }
    eval(
        page,
        "(async () => (await axe.run(document, { resultTypes: ['violations'] })).violations \
           .filter((v) => v.impact === 'serious' || v.impact === 'critical') \
           .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`))()",
    )
    .await
}

#[tokio::test]
async fn axe_finds_no_serious_violation_on_the_main_views() {
    let Some(browser) = Chromium::start("axe").await else {
        return;
    };
    let (s, _workspace) = Server::with_workspace(&[("a.txt", "text")]).await;
    s.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new("r1", "ReadFile", r#"{"path":"a.txt"}"#)]),
        ScriptedResponse::text("Read it: **fine**.\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done"),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "read a.txt").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered') !== null && !document.getElementById('input').disabled",
    )
    .await;
    for theme in ["light", "dark"] {
        prefer_scheme(&page, theme).await;
        for (width, height) in [(1280, 800), (390, 844)] {
            set_viewport(&page, width, height).await;
            let found = violations(&page).await;
            assert_eq!(found, serde_json::json!([]), "{theme} at {width} px");
        }
    }
    browser.close().await;

    let Some(browser) = Chromium::start("axe sign-in").await else {
        return;
    };
    let (s, _token) = Server::with_one_user().await;
    let page = browser.open(&format!("{}/", s.base)).await;
    wait_for(&page, "!document.getElementById('login').hidden").await;
    assert_eq!(violations(&page).await, serde_json::json!([]), "sign-in");
    browser.close().await;
}
