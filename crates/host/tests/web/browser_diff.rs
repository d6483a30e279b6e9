//! A file write's diff in headless Chromium: when WriteFile replaced a file its result
//! ends in a fenced ```diff block, which the card draws as a diff (added lines green,
//! removed red, hunk headers muted, long lines scrolling inside the block) in place of
//! the content written, as it streams and after a reload; a new file's card shows its
//! content as before. The result comes from a scripted `WriteFile` (the result's shape
//! is the tool's, fixed here), and nothing in it becomes markup.

use crate::browser_support;
use crate::common;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use browser_support::{
    Chromium, click, eval, open_page, prefer_scheme, reload, screenshot_at, send, set_viewport,
    wait_for,
};
use common::Server;
use serde_json::{Value, json};
use smallebot_agent::tools::{Args, Tool, ToolRegistry};
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolSchema, ToolTraits};
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

const LONG: &str = "a line long enough to scroll sideways inside its block rather than widen the page: 0123456789 0123456789 0123456789 0123456789";

/// WriteFile's result for `plan.md` replaced: its report, then the diff block.
fn replaced_result() -> String {
    [
        "Wrote 131 bytes to 'plan.md' (replaced the previous 40 bytes).",
        "",
        "```diff",
        "--- a/plan.md",
        "+++ b/plan.md",
        "@@ -1,4 +1,4 @@",
        " # Plan",
        "-- one",
        "--- a rule that was a heading underline",
        "+- one, done",
        "+<img src=x onerror=\"document.title='pwned'\">",
        &format!("+{LONG}"),
        " - three",
        "… 12 more lines",
        "```",
    ]
    .join("\n")
}

/// A `WriteFile` that writes nothing and answers as the real one does: with a diff for
/// `plan.md` (replaced), without one for any other path (a new file).
struct ScriptedWrite;

#[async_trait]
impl Tool for ScriptedWrite {
    fn name(&self) -> &str {
        "WriteFile"
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: self.name().into(),
            description: "Writes a file.".into(),
            parameters: json!({"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}),
        }
    }

    async fn call(&self, args: &Args, _ctx: &ToolContext) -> ToolOutcome {
        match args.as_map().get("path").and_then(Value::as_str) {
            Some("plan.md") => ToolOutcome::ok(replaced_result()),
            Some(path) => ToolOutcome::ok(format!("Wrote 9 bytes to '{path}' (new file).")),
            None => ToolOutcome::error("no path"),
        }
    }
}

const CARD: &str = "document.querySelector('[data-call-id=\"w1\"]')";

/// What the replaced file's card shows: [report, kinds of the lines, content hidden,
/// markup in it, the block scrolls sideways, add and remove colours differ].
async fn shown_diff(page: &chromiumoxide::Page) -> Value {
    eval(
        page,
        &format!(
            "(() => {{ const card = {CARD}; const diff = card.querySelector('.diff'); \
             const color = (s) => getComputedStyle(diff.querySelector(s)).backgroundColor; \
             return [card.querySelector('.result').textContent, \
               [...diff.querySelectorAll('.diff-line')].map((l) => l.className.replace('diff-line diff-', '')), \
               card.querySelector('.file-content').hidden, \
               card.querySelectorAll('img, [onerror]').length, \
               diff.scrollWidth > diff.clientWidth, \
               color('.diff-add') !== color('.diff-del') && color('.diff-add') !== color('.diff-context')]; }})()"
        ),
    )
    .await
}

#[tokio::test]
async fn a_replaced_file_shows_its_diff_and_a_new_one_its_content() {
    let Some(browser) = Chromium::start("diff cards").await else {
        return;
    };
    let s = Server::start_custom(
        |agent| agent.tools(ToolRegistry::new().with(Arc::new(ScriptedWrite))),
        |web| web,
    )
    .await;
    s.model.push_all([
        ScriptedResponse::tool_calls([
            ToolCallSpec::new(
                "w1",
                "WriteFile",
                r##"{"path":"plan.md","content":"# Plan\n- one, done\n- three\n"}"##,
            ),
            ToolCallSpec::new(
                "w2",
                "WriteFile",
                r##"{"path":"new.md","content":"# New\n"}"##,
            ),
        ]),
        ScriptedResponse::text("Updated the plan."),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "update the plan").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('Updated the plan.') \
         && !document.getElementById('input').disabled",
    )
    .await;
    let expected = json!([
        "Wrote 131 bytes to 'plan.md' (replaced the previous 40 bytes).",
        [
            "file", "file", "hunk", "context", "del", "del", "add", "add", "add", "context", "more"
        ],
        true,
        0,
        true,
        true
    ]);
    assert_eq!(shown_diff(&page).await, expected);
    // A new file: its content, no diff.
    let new = "document.querySelector('[data-call-id=\"w2\"]')";
    assert_eq!(
        eval(
            &page,
            &format!(
                "[{new}.querySelector('.diff'), {new}.querySelector('.file-content').hidden, \
                 {new}.querySelector('.file-content').textContent, {new}.querySelector('.result').textContent]"
            )
        )
        .await,
        json!([null, false, "# New\n", "Wrote 9 bytes to 'new.md' (new file)."])
    );
    // The stored card after a reload draws the same diff.
    reload(&page).await;
    wait_for(&page, &format!("{CARD}?.querySelector('.diff') != null")).await;
    assert_eq!(shown_diff(&page).await, expected);
    assert_ne!(eval(&page, "document.title").await, "pwned");
    // Readable at a phone's width and a desktop's, light and dark; the page itself
    // never scrolls sideways.
    for theme in ["light", "dark"] {
        prefer_scheme(&page, theme).await;
        for (width, height) in [(1280, 800), (390, 844)] {
            set_viewport(&page, width, height).await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            eval(
                &page,
                &format!("{CARD}.scrollIntoView({{ block: 'start' }}) ?? true"),
            )
            .await;
            assert_eq!(
                eval(
                    &page,
                    "document.documentElement.scrollWidth <= window.innerWidth"
                )
                .await,
                true,
                "{width} px {theme}"
            );
            screenshot_at(&page, &format!("diff-card-{width}-{theme}"), width, height).await;
        }
    }
    // The content written is a click away.
    click(&page, "[data-call-id=\"w1\"] .show-file").await;
    assert_eq!(
        eval(
            &page,
            &format!("{CARD}.querySelector('.file-content').hidden")
        )
        .await,
        false
    );
    browser.close().await;
}
