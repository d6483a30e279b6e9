//! The page benchmark's measurements in headless Chromium: what a person waits for,
//! timed by the page's own clocks (paint timing, `Date.now()`), so the driver's
//! round trips over the DevTools Protocol do not count.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use smallebot_testkit::browser::chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, BringToFrontParams,
};
use smallebot_testkit::browser::{Chromium, Page, evaluate, navigate, wait_until};

/// How long one measurement may take before the benchmark gives up.
const PATIENCE: Duration = Duration::from_secs(180);

/// `window.__watch(cls, count)`: once `#messages` has `count` children of class `cls`
/// and the message box is enabled, `window.__bench` becomes `{drawn, painted}`
/// (`Date.now()` when the mutation that made it so ran, and after the next frame).
/// Only the children of `#messages` are looked at, so the check costs the same
/// however long an answer grows.
const WATCH: &str = r#"
window.__bench = null;
window.__watch = (cls, count) => {
  const ready = () => {
    const input = document.getElementById("input");
    const messages = document.getElementById("messages");
    if (!input || input.disabled || !messages) return false;
    let n = 0;
    for (const child of messages.children) if (child.classList.contains(cls)) n += 1;
    return n >= count;
  };
  const observer = new MutationObserver(() => {
    if (!ready()) return;
    observer.disconnect();
    const drawn = Date.now();
    requestAnimationFrame(() => setTimeout(() => (window.__bench = { drawn, painted: Date.now() })));
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["disabled"] });
};
"#;

/// Milliseconds as a duration (negative ones as zero).
pub fn millis(ms: f64) -> Duration {
    Duration::from_secs_f64(ms.max(0.0) / 1000.0)
}

fn number(value: &Value, what: &str) -> Result<f64, String> {
    value
        .as_f64()
        .ok_or_else(|| format!("the page gave no {what} (it answered {value})"))
}

/// The wall-clock time of `at`, in milliseconds since the epoch (the page's
/// `Date.now()` clock).
pub fn wall_ms(at: Instant) -> f64 {
    let back = Instant::now().saturating_duration_since(at);
    SystemTime::now()
        .checked_sub(back)
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

/// A new blank tab, with `script` (if any) run in every document it loads, sent to
/// `url` (the load not awaited: the page's clocks time it).
async fn tab_at(browser: &Chromium, url: &str, script: Option<String>) -> Result<Page, String> {
    let tab = browser
        .new_tab("about:blank")
        .await
        .map_err(|e| e.to_string())?;
    // Only a tab in front paints (a hidden one has no first paint to time).
    tab.execute(BringToFrontParams::default())
        .await
        .map_err(|e| format!("bringing the tab to the front: {e}"))?;
    if let Some(source) = script {
        tab.execute(AddScriptToEvaluateOnNewDocumentParams::new(source))
            .await
            .map_err(|e| format!("installing the probe: {e}"))?;
    }
    navigate(&tab, url).await.map_err(|e| e.to_string())?;
    Ok(tab)
}

/// `url` opened in a new tab: the time from navigation start to its first contentful
/// paint.
pub async fn first_paint(browser: &Chromium, url: &str) -> Result<Duration, String> {
    let tab = tab_at(browser, url, None).await?;
    let entry = "performance.getEntriesByName('first-contentful-paint')[0]";
    // The document loaded from `url` (its address may change at once: `/` opens the
    // newest conversation at `/c/{id}`), not the blank tab before it.
    let painted = format!(
        "performance.getEntriesByType('navigation')[0]?.name === {url:?} && {entry} !== undefined"
    );
    wait_until(&tab, &painted, PATIENCE)
        .await
        .map_err(|e| e.to_string())?;
    let start = evaluate(&tab, &format!("{entry}.startTime"))
        .await
        .map_err(|e| e.to_string())?;
    close(tab).await;
    Ok(millis(number(&start, "first contentful paint")?))
}

/// `url` (a conversation, `/c/{id}`) opened in a new tab: the time from navigation
/// start until its timeline shows `messages` messages, the message box is enabled and
/// the next frame is drawn.
pub async fn interactive(
    browser: &Chromium,
    url: &str,
    messages: usize,
) -> Result<Duration, String> {
    let source = format!("{WATCH}\nwindow.__watch('message', {messages});");
    let tab = tab_at(browser, url, Some(source)).await?;
    let bench = settled(&tab).await?;
    let origin = evaluate(&tab, "performance.timeOrigin")
        .await
        .map_err(|e| e.to_string())?;
    close(tab).await;
    Ok(millis(
        number(&bench["painted"], "time")? - number(&origin, "time origin")?,
    ))
}

/// When a streamed answer was shown: the page's clock when it was sent, and when the
/// stored timeline showed it rendered (the next frame drawn).
pub struct Streamed {
    /// `Date.now()` when the message was sent.
    pub sent_ms: f64,
    /// `Date.now()` after the frame that showed the answer rendered.
    pub shown_ms: f64,
}

/// Sends `text` in conversation `url` (which shows one stored answer) and waits until
/// the answer the model streams is rendered as stored, the message box enabled again.
pub async fn streamed(browser: &Chromium, url: &str, text: &str) -> Result<Streamed, String> {
    let tab = tab_at(browser, url, None).await?;
    let one_answer = "document.getElementById('input')?.disabled === false \
                      && document.querySelectorAll('#messages .message.assistant.rendered').length === 1";
    wait_until(&tab, one_answer, PATIENCE)
        .await
        .map_err(|e| e.to_string())?;
    let send = format!(
        "{WATCH}\nwindow.__watch('rendered', 2);\n\
         window.__sent = Date.now();\n\
         document.getElementById('input').value = {text:?};\n\
         document.getElementById('composer').requestSubmit();\n\
         window.__sent"
    );
    let sent = evaluate(&tab, &send).await.map_err(|e| e.to_string())?;
    let bench = settled(&tab).await?;
    close(tab).await;
    Ok(Streamed {
        sent_ms: number(&sent, "send time")?,
        shown_ms: number(&bench["painted"], "time")?,
    })
}

/// `window.__bench`, once the watched state is reached.
async fn settled(tab: &Page) -> Result<Value, String> {
    wait_until(tab, "window.__bench != null", PATIENCE)
        .await
        .map_err(|e| e.to_string())?;
    evaluate(tab, "window.__bench")
        .await
        .map_err(|e| e.to_string())
}

async fn close(tab: Page) {
    let _ = tab.close().await;
}
