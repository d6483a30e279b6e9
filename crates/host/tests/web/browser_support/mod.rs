//! Headless Chromium (the testkit's driver, `smallebot_testkit::browser`) driving the
//! page of a test server.
//!
//! Without a `chromium` binary the browser tests print one loud line and pass as
//! skipped — unless `SMALLEBOT_REQUIRE_BROWSER=1` (set by `.ci/run`), where a missing
//! browser fails them. `SMALLEBOT_CHROMIUM` names another binary.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotFormat;
use chromiumoxide::page::{Page, ScreenshotParams};
use smallebot_testkit::browser::{evaluate, wait_until};

use crate::common::Server;

/// A headless browser for one test (`Chromium::start` skips loudly without one).
pub use smallebot_testkit::browser::Chromium;

/// The page of a fresh server, ready for input (it opened a new conversation).
pub async fn open_page(s: &Server, browser: &Chromium) -> Page {
    let page = browser.open(&format!("{}/", s.base)).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    page
}

/// Sends `text`, which the model answers at length and slowly, and stops the answer
/// once it streams; returns when the page marks it stopped.
pub async fn send_and_stop(s: &Server, page: &Page, text: &str) {
    s.model.push(
        smallebot_testkit::ScriptedResponse::text("word ".repeat(300))
            .chunk_size(5)
            .delay_between(Duration::from_millis(40)),
    );
    send(page, text).await;
    wait_for(
        page,
        "document.querySelector('.message.assistant.streaming')?.textContent.length > 10",
    )
    .await;
    click(page, "#stop").await;
    wait_for(
        page,
        "document.querySelector('.message.assistant.stopped .stopped-mark')?.textContent === 'Stopped'",
    )
    .await;
}

/// Loads the page again and waits for the new document (30 s at most).
pub async fn reload(page: &Page) {
    smallebot_testkit::browser::reload(page)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Types `text` in the message box and presses Enter.
pub async fn send(page: &Page, text: &str) {
    type_into(page, "#input", text).await;
    press(page, "#input", "Enter").await;
}

/// Evaluates `js` in `page` and returns its JSON value.
pub async fn eval(page: &Page, js: &str) -> serde_json::Value {
    evaluate(page, js).await.unwrap_or_else(|e| panic!("{e}"))
}

/// Waits until the JavaScript expression `condition` is true (10 s at most).
pub async fn wait_for(page: &Page, condition: &str) {
    wait_within(page, condition, Duration::from_secs(10)).await;
}

/// Waits until the JavaScript expression `condition` is true (`within` at most).
pub async fn wait_within(page: &Page, condition: &str, within: Duration) {
    wait_until(page, condition, within)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Types `text` into the element `selector` (focused first).
pub async fn type_into(page: &Page, selector: &str, text: &str) {
    click(page, selector).await;
    page.find_element(selector)
        .await
        .unwrap()
        .type_str(text)
        .await
        .unwrap();
}

/// Presses a key (`Enter`, …) in the element `selector`.
pub async fn press(page: &Page, selector: &str, key: &str) {
    page.find_element(selector)
        .await
        .unwrap()
        .press_key(key)
        .await
        .unwrap();
}

/// Clicks the element `selector`. The page re-renders on events, so an element found
/// may be replaced before the click lands ("Could not find node"): then it is found
/// again, for up to 10 s.
pub async fn click(page: &Page, selector: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let clicked = match page.find_element(selector).await {
            Ok(element) => element.click().await.map(|_| ()),
            Err(err) => Err(err),
        };
        match clicked {
            Ok(()) => return,
            Err(err) if Instant::now() > deadline => {
                panic!("cannot click `{selector}`: {err}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Saves a screenshot as `target/ui-screenshots/<name>.png`.
pub async fn screenshot(page: &Page, name: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/ui-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    page.save_screenshot(
        ScreenshotParams::builder()
            .format(CaptureScreenshotFormat::Png)
            .build(),
        dir.join(format!("{name}.png")),
    )
    .await
    .unwrap();
}

/// Saves a screenshot as `target/ui-screenshots/<name>.png` with the page laid out
/// for a `width` × `height` window (a phone, a laptop); the override stays on the page.
pub async fn screenshot_at(page: &Page, name: &str, width: i64, height: i64) {
    set_viewport(page, width, height).await;
    screenshot(page, name).await;
}

/// Lays the page out for a `width` × `height` window (a phone below 600 px); the
/// override stays on the page.
pub async fn set_viewport(page: &Page, width: i64, height: i64) {
    use chromiumoxide::cdp::browser_protocol::emulation::SetDeviceMetricsOverrideParams;
    page.execute(SetDeviceMetricsOverrideParams::new(
        width,
        height,
        1.0,
        width < 600,
    ))
    .await
    .unwrap();
}

/// Presses Shift+Enter in the focused element (as a person does for a new line).
pub async fn shift_enter(page: &Page) {
    use chromiumoxide::cdp::browser_protocol::input::DispatchKeyEventParams;
    key_down_up(
        page,
        DispatchKeyEventParams::builder()
            .key("Enter")
            .code("Enter")
            .text("\r")
            .modifiers(8) // Shift
            .windows_virtual_key_code(13)
            .native_virtual_key_code(13),
    )
    .await;
}

/// Presses `key` (its `code`, e.g. `KeyK`) with `modifiers` (Alt 1, Ctrl 2, Meta 4,
/// Shift 8) in the focused element.
pub async fn press_with(page: &Page, key: &str, code: &str, modifiers: i64) {
    use chromiumoxide::cdp::browser_protocol::input::DispatchKeyEventParams;
    key_down_up(
        page,
        DispatchKeyEventParams::builder()
            .key(key)
            .code(code)
            .modifiers(modifiers),
    )
    .await;
}

/// Sends `event` as a key going down, then up.
async fn key_down_up(
    page: &Page,
    event: chromiumoxide::cdp::browser_protocol::input::DispatchKeyEventParamsBuilder,
) {
    use chromiumoxide::cdp::browser_protocol::input::DispatchKeyEventType;
    for kind in [DispatchKeyEventType::KeyDown, DispatchKeyEventType::KeyUp] {
        page.execute(event.clone().r#type(kind).build().unwrap())
            .await
            .unwrap();
    }
}

/// Makes the page see `scheme` (`light` or `dark`) as the system's colour scheme.
pub async fn prefer_scheme(page: &Page, scheme: &str) {
    use chromiumoxide::cdp::browser_protocol::emulation::{MediaFeature, SetEmulatedMediaParams};
    let feature = MediaFeature {
        name: "prefers-color-scheme".into(),
        value: scheme.into(),
    };
    page.execute(
        SetEmulatedMediaParams::builder()
            .features(vec![feature])
            .build(),
    )
    .await
    .unwrap();
}

/// Screenshots `<prefix>-{desktop,phone}-{light,dark}` at 1280 × 800 and 390 × 844, on
/// a phone once the list drawer has slid away; the page is left at the last of them.
pub async fn screenshots_in_each_scheme(page: &Page, prefix: &str) {
    for (width, height, name) in [(1280, 800, "desktop"), (390, 844, "phone")] {
        for scheme in ["light", "dark"] {
            set_viewport(page, width, height).await;
            if width < 600 {
                wait_for(
                    page,
                    "document.getElementById('sidebar').getBoundingClientRect().right <= 0 \
                     && getComputedStyle(document.getElementById('sidebar')).visibility \
                     === 'hidden'",
                )
                .await;
            }
            prefer_scheme(page, scheme).await;
            wait_for(
                page,
                &format!("document.documentElement.dataset.theme === '{scheme}'"),
            )
            .await;
            screenshot_at(page, &format!("{prefix}-{name}-{scheme}"), width, height).await;
        }
    }
}
