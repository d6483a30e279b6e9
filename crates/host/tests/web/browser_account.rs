//! The signed-in user in headless Chromium: the name shown (`GET /api/me`) and Sign out
//! (`POST /api/logout`), after which the sign-in card is back, also after a reload; on
//! loopback without users the local user's name shows and there is no Sign out.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, open_page, reload, screenshot, type_into, wait_for};
use common::Server;

#[tokio::test]
async fn the_signed_in_name_shows_and_sign_out_brings_the_card_back() {
    let Some(browser) = Chromium::start("sign-in name and sign-out").await else {
        return;
    };
    let (s, token) = Server::with_one_user().await;
    let page = browser.open(&format!("{}/", s.base)).await;
    wait_for(&page, "!document.getElementById('login').hidden").await;
    type_into(&page, "#token", &token).await;
    click(&page, "#login button[type=submit]").await;
    wait_for(
        &page,
        "document.getElementById('me').textContent === 'alice' \
         && !document.getElementById('sign-out').hidden \
         && !document.getElementById('input').disabled",
    )
    .await;
    screenshot(&page, "signed-in-name").await;
    click(&page, "#sign-out").await;
    wait_for(
        &page,
        "!document.getElementById('login')?.hidden && document.getElementById('sidebar').hidden",
    )
    .await;
    // The cookie is gone: a reload asks for the token again.
    reload(&page).await;
    wait_for(&page, "!document.getElementById('login').hidden").await;
    assert_eq!(
        eval(&page, "document.getElementById('me').textContent").await,
        ""
    );
    browser.close().await;
}

#[tokio::test]
async fn without_users_nobody_signs_out() {
    let Some(browser) = Chromium::start("no sign-out without users").await else {
        return;
    };
    let s = Server::start().await;
    let page = open_page(&s, &browser).await;
    wait_for(
        &page,
        "document.getElementById('me').textContent === 'alice'",
    )
    .await;
    assert_eq!(
        eval(
            &page,
            "[document.getElementById('sign-out').hidden, \
              document.getElementById('sign-out').offsetParent === null]"
        )
        .await,
        serde_json::json!([true, true])
    );
    browser.close().await;
}
