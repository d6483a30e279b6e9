//! Headless Chromium (the distribution's package) driving the page of a test server.
//!
//! Without a `chromium` binary the browser tests print one loud line and pass as
//! skipped — unless `SMALLEBOT_REQUIRE_BROWSER=1` (set by `.ci/run`), where a missing
//! browser fails them. `SMALLEBOT_CHROMIUM` names another binary.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::page::CaptureScreenshotFormat;
use chromiumoxide::handler::viewport::Viewport;
use chromiumoxide::page::{Page, ScreenshotParams};
use futures::StreamExt;
use tokio::task::JoinHandle;

use crate::common::Server;

/// A headless browser for one test.
pub struct Chromium {
    browser: Browser,
    handler: JoinHandle<()>,
    _profile: tempfile::TempDir,
}

/// The Chromium binary, if there is one.
fn executable() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("SMALLEBOT_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

impl Chromium {
    /// Starts Chromium, or `None` (with one loud line) when there is none and CI does
    /// not require one.
    pub async fn start(test: &str) -> Option<Self> {
        let Some(executable) = executable() else {
            if std::env::var("SMALLEBOT_REQUIRE_BROWSER").as_deref() == Ok("1") {
                panic!("{test}: SMALLEBOT_REQUIRE_BROWSER=1 but no chromium binary was found");
            }
            eprintln!(
                "!!! SKIPPED {test}: browser tests need Chromium (apt-get install chromium, \
                 or set SMALLEBOT_CHROMIUM)"
            );
            return None;
        };
        let profile = tempfile::tempdir().unwrap();
        let config = BrowserConfig::builder()
            .chrome_executable(executable)
            .new_headless_mode()
            .no_sandbox()
            .user_data_dir(profile.path())
            .window_size(1280, 900)
            .viewport(Viewport {
                width: 1280,
                height: 900,
                ..Viewport::default()
            })
            .arg("--disable-gpu")
            .arg("--disable-dev-shm-usage")
            .build()
            .unwrap();
        let (browser, mut events) = Browser::launch(config).await.unwrap();
        let handler = tokio::spawn(async move { while events.next().await.is_some() {} });
        Some(Self {
            browser,
            handler,
            _profile: profile,
        })
    }

    /// Opens `url` in a new tab.
    pub async fn open(&self, url: &str) -> Page {
        self.browser.new_page(url).await.unwrap()
    }

    /// Closes the browser; one that does not exit within 5 s (a loaded machine) is
    /// killed, so that a test never hangs on its last line.
    pub async fn close(mut self) {
        let patience = Duration::from_secs(5);
        let _ = tokio::time::timeout(patience, self.browser.close()).await;
        if tokio::time::timeout(patience, self.browser.wait())
            .await
            .is_err()
        {
            let _ = self.browser.kill().await;
        }
        self.handler.abort();
    }
}

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

/// Types `text` in the message box and presses Enter.
pub async fn send(page: &Page, text: &str) {
    type_into(page, "#input", text).await;
    press(page, "#input", "Enter").await;
}

/// Evaluates `js` in `page` and returns its JSON value.
pub async fn eval(page: &Page, js: &str) -> serde_json::Value {
    page.evaluate(js)
        .await
        .unwrap_or_else(|e| panic!("evaluating {js}: {e}"))
        .into_value()
        .unwrap_or(serde_json::Value::Null)
}

/// Waits until the JavaScript expression `condition` is true (10 s at most).
pub async fn wait_for(page: &Page, condition: &str) {
    wait_within(page, condition, Duration::from_secs(10)).await;
}

/// Waits until the JavaScript expression `condition` is true (`within` at most).
pub async fn wait_within(page: &Page, condition: &str, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        if eval(page, condition).await == serde_json::Value::Bool(true) {
            return;
        }
        if Instant::now() > deadline {
            let body = eval(page, "document.body.innerText").await;
            panic!("timed out waiting for `{condition}`; the page shows:\n{body}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
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
