//! The page's shape in headless Chromium: ES modules from the embedded assets, no
//! script shared through globals, the icon.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, eval, open_page};
use common::Server;
use reqwest::StatusCode;

#[tokio::test]
async fn the_page_runs_as_es_modules_that_share_no_globals() {
    let Some(browser) = Chromium::start("modules").await else {
        return;
    };
    let s = Server::start().await;
    let page = open_page(&s, &browser).await;
    // Only module scripts, and none of their functions or state leak onto `window`.
    assert_eq!(
        eval(
            &page,
            "[...document.scripts].every((script) => script.type === 'module')"
        )
        .await,
        true
    );
    for name in [
        "onEvent",
        "state",
        "api",
        "refresh",
        "renderPlan",
        "loadModels",
        "$",
    ] {
        assert_eq!(
            eval(&page, &format!("typeof window['{name}']")).await,
            "undefined",
            "{name} is a global"
        );
    }
    // A module is served as JavaScript; a path that is no asset is not.
    let module = s
        .http
        .get(s.url("/assets/js/main.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(module.status(), StatusCode::OK);
    assert!(
        module.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    let missing = s
        .http
        .get(s.url("/assets/js/nothing.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    // The icon is there (browsers ask for it on every page).
    let icon = s.http.get(s.url("/favicon.ico")).send().await.unwrap();
    assert_eq!(icon.status(), StatusCode::OK);
    browser.close().await;
}
