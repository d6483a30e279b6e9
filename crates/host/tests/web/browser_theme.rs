//! Dark mode: the page follows the system's colour scheme until the switch is flipped,
//! and remembers the switch.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, open_page, prefer_scheme, reload, wait_for};
use chromiumoxide::Page;
use common::Server;

/// Whether the page's background is dark (its red channel below the middle).
async fn dark(page: &Page) -> bool {
    let rgb = eval(page, "getComputedStyle(document.body).backgroundColor").await;
    let red: u32 = rgb.as_str().unwrap()[4..]
        .split(',')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    red < 128
}

#[tokio::test]
async fn the_page_follows_the_system_scheme_until_the_switch_is_flipped() {
    let Some(browser) = Chromium::start("dark mode").await else {
        return;
    };
    let s = Server::start().await;
    let page = open_page(&s, &browser).await;
    prefer_scheme(&page, "light").await;
    assert!(!dark(&page).await, "light system, light page");
    prefer_scheme(&page, "dark").await;
    wait_for(&page, "document.documentElement.dataset.theme === 'dark'").await;
    assert!(dark(&page).await, "dark system, dark page");
    assert_eq!(
        eval(
            &page,
            "document.getElementById('theme-toggle').getAttribute('aria-pressed')"
        )
        .await,
        "true"
    );
    // The switch wins over the system, and is remembered across a reload.
    click(&page, "#theme-toggle").await;
    wait_for(&page, "document.documentElement.dataset.theme === 'light'").await;
    assert!(!dark(&page).await, "switched to light");
    reload(&page).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    prefer_scheme(&page, "dark").await;
    assert!(!dark(&page).await, "the switch was forgotten");
    click(&page, "#theme-toggle").await;
    wait_for(&page, "document.documentElement.dataset.theme === 'dark'").await;
    assert!(dark(&page).await);
    browser.close().await;
}
