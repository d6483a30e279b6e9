//! Headless Chromium (the distribution's package) over the DevTools Protocol, for the
//! web page's tests and the page benchmark (feature `browser`).
//!
//! Without a `chromium` binary the tests print one loud line and pass as skipped —
//! unless [`REQUIRE_BROWSER_ENV`]`=1` (set by CI), where a missing browser fails them.
//! [`CHROMIUM_ENV`] names another binary.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use chromiumoxide::browser::{Browser, BrowserConfig};
use chromiumoxide::handler::viewport::Viewport;
use futures::StreamExt;
use tokio::task::JoinHandle;

pub use chromiumoxide::{self, Page};

use crate::error::TestkitError;

/// Set to `1`, a missing browser fails the tests instead of skipping them.
pub const REQUIRE_BROWSER_ENV: &str = "SMALLEBOT_REQUIRE_BROWSER";

/// Names the Chromium binary to use instead of the first on `PATH`.
pub const CHROMIUM_ENV: &str = "SMALLEBOT_CHROMIUM";

/// How to get a browser, said when there is none.
pub const INSTALL_HINT: &str = "apt-get install chromium, or set SMALLEBOT_CHROMIUM";

/// How long a test may hold its browser before it is taken for stuck.
///
/// Some waits of the DevTools driver have no deadline of their own (a page's load after
/// a navigation, a tab whose set-up commands went unanswered): a test stuck on one would
/// hang its whole test binary, and CI with it, until CI's own limit.
pub const STUCK_AFTER: Duration = Duration::from_secs(300);

/// How long a tab may take to open, or a page to load again.
const PAGE_PATIENCE: Duration = Duration::from_secs(30);

/// A headless browser with a throwaway profile.
pub struct Chromium {
    browser: Browser,
    handler: JoinHandle<()>,
    _profile: tempfile::TempDir,
    /// Set for a test's browser: ends the test binary if the test is stuck.
    _watchdog: Option<Watchdog>,
}

/// Ends the process, saying which test was stuck, unless dropped within its time: a
/// thread of its own, so that it fires even when the test's runtime is blocked.
struct Watchdog {
    _dropped: std::sync::mpsc::Sender<()>,
}

impl Watchdog {
    /// Calls `stuck` with the message naming `test` unless dropped within `within`.
    fn start(test: &str, within: Duration, stuck: impl FnOnce(&str) + Send + 'static) -> Self {
        let (dropped, watched) = std::sync::mpsc::channel::<()>();
        let message = format!(
            "!!! {test}: still running after {} s with its browser — stuck on the browser, \
             the page or the server; ending the test binary so that the run fails now \
             instead of hanging",
            within.as_secs()
        );
        std::thread::spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = watched.recv_timeout(within) {
                stuck(&message);
            }
        });
        Self { _dropped: dropped }
    }
}

/// What a stuck test's watchdog does: says so and ends the process with a failure.
fn end_the_process(message: &str) {
    eprintln!("{message}");
    std::process::exit(101);
}

/// The Chromium binary: [`CHROMIUM_ENV`], else `chromium`, `chromium-browser` or
/// `google-chrome` on `PATH`; `None` when there is none.
pub fn executable() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(CHROMIUM_ENV) {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

fn failed(what: &str, err: impl std::fmt::Display) -> TestkitError {
    TestkitError::Browser(format!("{what}: {err}"))
}

impl Chromium {
    /// Starts `executable` headless, with a 1280 × 900 window and a fresh profile.
    pub async fn launch(executable: PathBuf) -> Result<Self, TestkitError> {
        let profile = tempfile::tempdir().map_err(|e| failed("creating a profile", e))?;
        let config = BrowserConfig::builder()
            .chrome_executable(&executable)
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
            .map_err(|e| failed("configuring Chromium", e))?;
        let (browser, mut events) = Browser::launch(config)
            .await
            .map_err(|e| failed(&format!("starting {}", executable.display()), e))?;
        // The driver's connection ends at its first failure: a browser that died would
        // otherwise fail each poll at once, and the loop would spin, starving the
        // test's runtime for good; once it is dropped, every waiting command fails.
        let handler = tokio::spawn(async move {
            while let Some(polled) = events.next().await {
                if let Err(err) = polled {
                    eprintln!("the connection to Chromium failed: {err}");
                    break;
                }
            }
        });
        Ok(Self {
            browser,
            handler,
            _profile: profile,
            _watchdog: None,
        })
    }

    /// Starts Chromium for test `test`, or `None` (with one loud line) when there is
    /// none and [`REQUIRE_BROWSER_ENV`] is not `1`. A test still holding it after
    /// [`STUCK_AFTER`] ends the test binary, naming the test.
    ///
    /// # Panics
    /// When the browser is required but missing, or cannot start: the test fails,
    /// saying why.
    #[allow(clippy::panic)]
    pub async fn start(test: &str) -> Option<Self> {
        let Some(executable) = executable() else {
            if std::env::var(REQUIRE_BROWSER_ENV).as_deref() == Ok("1") {
                panic!("{test}: {REQUIRE_BROWSER_ENV}=1 but no chromium binary was found");
            }
            eprintln!("!!! SKIPPED {test}: browser tests need Chromium ({INSTALL_HINT})");
            return None;
        };
        match Self::launch(executable).await {
            Ok(browser) => Some(Self {
                _watchdog: Some(Watchdog::start(test, STUCK_AFTER, end_the_process)),
                ..browser
            }),
            Err(err) => panic!("{test}: {err}"),
        }
    }

    /// Opens `url` in a new tab (30 s at most).
    pub async fn new_tab(&self, url: &str) -> Result<Page, TestkitError> {
        let what = format!("opening {url}");
        tokio::time::timeout(PAGE_PATIENCE, self.browser.new_page(url))
            .await
            .map_err(|_| failed(&what, "no tab after 30 s"))?
            .map_err(|e| failed(&what, e))
    }

    /// Opens `url` in a new tab (for tests).
    ///
    /// # Panics
    /// When the tab cannot be opened.
    #[allow(clippy::panic)]
    pub async fn open(&self, url: &str) -> Page {
        self.new_tab(url)
            .await
            .unwrap_or_else(|err| panic!("{err}"))
    }

    /// Closes the browser; one that does not exit within 5 s (a loaded machine) is
    /// killed, so that nothing hangs on it.
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

/// Sends `page` to `url` and returns once the navigation started, not waiting for the
/// page to load (a benchmark times the load with the page's own clocks).
pub async fn navigate(page: &Page, url: &str) -> Result<(), TestkitError> {
    use chromiumoxide::cdp::browser_protocol::page::NavigateParams;
    page.execute(NavigateParams::new(url))
        .await
        .map_err(|e| failed(&format!("navigating to {url}"), e))?;
    Ok(())
}

/// Loads `page` again and waits (30 s at most) until the new document has loaded.
///
/// Unlike the driver's own `reload`, whose wait for the load has no deadline.
pub async fn reload(page: &Page) -> Result<(), TestkitError> {
    use chromiumoxide::cdp::browser_protocol::page::ReloadParams;
    // A mark on the old document: the new one has none.
    evaluate(page, "window.__smallebotBeforeReload = true").await?;
    page.execute(ReloadParams::default())
        .await
        .map_err(|e| failed("reloading the page", e))?;
    let loaded = "!window.__smallebotBeforeReload && document.readyState === 'complete'";
    let deadline = Instant::now() + PAGE_PATIENCE;
    loop {
        // While the documents change, evaluating can fail: the old one is gone.
        if let Ok(serde_json::Value::Bool(true)) = evaluate(page, loaded).await {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(TestkitError::Browser(
                "the page did not load again within 30 s of a reload".into(),
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Evaluates the JavaScript expression `js` in `page` (a promise is awaited) and
/// returns its JSON value (`null` for what has none).
pub async fn evaluate(page: &Page, js: &str) -> Result<serde_json::Value, TestkitError> {
    Ok(page
        .evaluate(js)
        .await
        .map_err(|e| failed(&format!("evaluating {js}"), e))?
        .into_value()
        .unwrap_or(serde_json::Value::Null))
}

/// Waits until the JavaScript expression `condition` is true in `page`, checking every
/// 50 ms, for `within` at most; the error says what the page shows then.
pub async fn wait_until(
    page: &Page,
    condition: &str,
    within: Duration,
) -> Result<(), TestkitError> {
    let deadline = Instant::now() + within;
    loop {
        if evaluate(page, condition).await? == serde_json::Value::Bool(true) {
            return Ok(());
        }
        if Instant::now() > deadline {
            let body = evaluate(page, "document.body.innerText").await?;
            return Err(TestkitError::Browser(format!(
                "timed out waiting for `{condition}`; the page shows:\n{body}"
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_watchdog_fires_naming_the_test_once_its_time_is_up() {
        let (tx, rx) = std::sync::mpsc::channel();
        let _watchdog = Watchdog::start("a slow test", Duration::from_millis(20), move |m| {
            tx.send(m.to_owned()).unwrap();
        });
        let message = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(message.contains("a slow test"), "{message}");
        assert!(message.contains("stuck"), "{message}");
    }

    #[test]
    fn a_watchdog_dropped_in_time_never_fires() {
        let (tx, rx) = std::sync::mpsc::channel::<String>();
        let watchdog = Watchdog::start("a quick test", Duration::from_millis(200), move |m| {
            tx.send(m.to_owned()).unwrap();
        });
        drop(watchdog);
        // The thread ends on the drop, taking its sender with it: nothing ever comes.
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(2)),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected)
        );
    }
}
