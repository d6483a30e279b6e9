//! The signed-in user in headless Chromium: the name shown (`GET /api/me`) and Sign out
//! (`POST /api/logout`), after which the sign-in card is back, also after a reload.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, screenshot, type_into, wait_for};
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
    page.reload().await.unwrap();
    wait_for(&page, "!document.getElementById('login').hidden").await;
    assert_eq!(
        eval(&page, "document.getElementById('me').textContent").await,
        ""
    );
    browser.close().await;
}
