//! The page on every screen: a phone's width has no sideways scroll, the list is a
//! drawer, the header's actions a menu, the tasks an overlay with a close button, every
//! control big enough to touch; the sign-in form stands alone.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, open_page, set_viewport, wait_for};
use chromiumoxide::Page;
use common::Server;

/// Whether `selector` is on screen (laid out and inside the viewport), as JavaScript.
fn visible(selector: &str) -> String {
    format!(
        "(() => {{ const e = document.querySelector('{selector}'); if (!e) return false; \
         const r = e.getBoundingClientRect(); const s = getComputedStyle(e); \
         return s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0 && \
         r.right > 0 && r.left < innerWidth; }})()"
    )
}

/// Whether `selector` is on screen.
async fn on_screen(page: &Page, selector: &str) -> bool {
    eval(page, &visible(selector)).await == serde_json::Value::Bool(true)
}

/// The visible controls smaller than 40 px either way, as text.
async fn small_targets(page: &Page) -> serde_json::Value {
    eval(
        page,
        "[...document.querySelectorAll('button, input, select, textarea, #conversations li')]\
         .filter((e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e); \
           return r.width > 0 && s.visibility !== 'hidden' && r.left < innerWidth && r.right > 0; })\
         .filter((e) => { const r = e.getBoundingClientRect(); return r.height < 40 || r.width < 40; })\
         .map((e) => `${e.id || e.className || e.tagName} ${Math.round(e.getBoundingClientRect().width)}x${Math.round(e.getBoundingClientRect().height)}`)",
    )
    .await
}

#[tokio::test]
async fn a_phone_gets_a_drawer_a_menu_and_no_sideways_scroll() {
    let Some(browser) = Chromium::start("phone layout").await else {
        return;
    };
    let s = Server::start().await;
    let page = open_page(&s, &browser).await;
    for (width, height) in [(390, 844), (360, 740)] {
        set_viewport(&page, width, height).await;
        // Nothing wider than the screen.
        wait_for(
            &page,
            "document.documentElement.scrollWidth <= innerWidth && document.body.scrollWidth <= innerWidth",
        )
        .await;
        // The chat has the width; the list waits in its drawer.
        wait_for(&page, &format!("!{}", visible("#sidebar"))).await;
        let chat = eval(
            &page,
            "document.getElementById('chat').getBoundingClientRect().width",
        )
        .await;
        assert_eq!(chat.as_f64().unwrap() as i64, width, "{width}: chat width");
        let small = small_targets(&page).await;
        assert_eq!(small, serde_json::json!([]), "{width}: small targets");
    }
    // The drawer opens with the menu button and closes with its own.
    click(&page, "#sidebar-toggle").await;
    // (slid in all the way before anything in it is clicked)
    wait_for(
        &page,
        "document.getElementById('sidebar').getBoundingClientRect().left === 0",
    )
    .await;
    assert!(on_screen(&page, "#new-conversation").await);
    assert_eq!(small_targets(&page).await, serde_json::json!([]));
    click(&page, "#sidebar-close").await;
    wait_for(&page, "!document.body.classList.contains('sidebar-open')").await;
    // The header's actions fold into a menu; Tasks opens an overlay with a close button.
    assert!(!on_screen(&page, "#tasks-toggle").await);
    click(&page, "#more").await;
    assert!(on_screen(&page, "#tasks-toggle").await);
    assert!(on_screen(&page, "#compact").await);
    click(&page, "#tasks-toggle").await;
    wait_for(&page, "!document.getElementById('tasks').hidden").await;
    assert!(on_screen(&page, "#tasks-close").await);
    let tasks = eval(
        &page,
        "getComputedStyle(document.getElementById('tasks')).position",
    )
    .await;
    assert_eq!(tasks, "fixed");
    assert_eq!(
        eval(&page, "document.documentElement.scrollWidth <= innerWidth").await,
        true
    );
    click(&page, "#tasks-close").await;
    wait_for(&page, "document.getElementById('tasks').hidden").await;
    browser.close().await;
}

#[tokio::test]
async fn the_sign_in_form_stands_alone_and_is_not_squeezed() {
    let Some(browser) = Chromium::start("sign-in layout").await else {
        return;
    };
    let (s, _token) = Server::with_one_user().await;
    let page = browser.open(&format!("{}/", s.base)).await;
    wait_for(&page, "!document.getElementById('login').hidden").await;
    for (width, height) in [(1280, 800), (390, 844)] {
        set_viewport(&page, width, height).await;
        // The app behind the form takes no room and cannot be seen.
        for part in ["#sidebar", "#chat"] {
            assert!(!on_screen(&page, part).await, "{width}: {part} shown");
        }
        let card = eval(
            &page,
            "(() => { const r = document.querySelector('.login-card').getBoundingClientRect(); \
             return [r.left, r.right, r.width]; })()",
        )
        .await;
        let [left, right, card_width] = [0, 1, 2].map(|i| card[i].as_f64().unwrap());
        assert!(
            card_width >= (width.min(420) - 40) as f64,
            "{width}: {card}"
        );
        // Centred: as much room left as right.
        assert!(
            (left - (width as f64 - right)).abs() < 2.0,
            "{width}: not centred {card}"
        );
    }
    browser.close().await;
}
