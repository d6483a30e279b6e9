//! Answers as Markdown in headless Chromium: rendered while they stream (no raw `**`,
//! the same layout as once stored), code highlighted with its language and a Copy
//! button, tables, quotes, inline code and task lists styled, long lines scrolling
//! inside their block, a whole answer copied.

use crate::browser_support;
use crate::common;

use std::time::Duration;

use browser_support::{Chromium, click, eval, open_page, screenshot, send, wait_for};
use common::Server;
use smallebot_testkit::{Gate, ScriptedResponse};

const ANSWER: &str = "Intro line.\n\nHere is **bold** text and `inline code`.\n\n\
```rust\nfn main() {\n    let greeting = \"hello\";\n}\n```\n\n\
| name | value |\n|------|-------|\n| a    | 1     |\n\n> a quoted line\n\n\
- [x] done\n- [ ] still open\n\n```text\nLONGLINE\n```\n\nThe end.";

#[tokio::test]
async fn a_streaming_answer_is_markdown_from_its_first_piece_to_its_last() {
    let Some(browser) = Chromium::start("markdown stream").await else {
        return;
    };
    let s = Server::start().await;
    let answer = ANSWER.replace("LONGLINE", &"wide ".repeat(120));
    let rest = Gate::new();
    s.model.push_all([ScriptedResponse::text(answer.clone())
        .chunk_size(3)
        .delay_between(Duration::from_millis(10))
        .pause_after_chunks(9, &rest)]);
    let page = open_page(&s, &browser).await;
    // Watches the streaming bubble for raw Markdown.
    eval(
        &page,
        "(() => { window.__raw = []; new MutationObserver(() => { \
           const b = document.querySelector('.message.assistant.streaming'); \
           if (b && /\\*\\*|\\| ---|```/.test(b.textContent)) window.__raw.push(b.textContent); }) \
         .observe(document.getElementById('messages'), { subtree: true, childList: true, characterData: true }); \
         return true; })()",
    )
    .await;
    send(&page, "show me markdown").await;
    // Paused inside "**bold**": already bold, no stars.
    wait_for(
        &page,
        "document.querySelector('.message.assistant.streaming strong')?.textContent.startsWith('bo')",
    )
    .await;
    rest.open();
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('The end.')",
    )
    .await;
    assert_eq!(eval(&page, "window.__raw").await, serde_json::json!([]));
    let answer_js = serde_json::to_string(&answer).unwrap();
    // No jump: the answer streamed again into a bubble beside the stored one takes
    // the same height.
    let heights = eval(
        &page,
        &format!(
            "(async () => {{ const {{ MarkdownStream }} = await import('/assets/js/markdown.js'); \
               const stored = document.querySelector('.message.assistant.rendered'); \
               const bubble = document.createElement('div'); \
               bubble.className = 'message assistant streaming'; \
               const stream = new MarkdownStream(bubble); \
               bubble.append(Object.assign(document.createElement('div'), {{ className: 'message-actions' }})); \
               stored.after(bubble); \
               for (const piece of {answer_js}.match(/[\\s\\S]{{1,3}}/g)) stream.push(piece); \
               while (stream.running) await new Promise((r) => setTimeout(r, 20)); \
               const h = [stored.getBoundingClientRect().height, bubble.getBoundingClientRect().height]; \
               bubble.remove(); return h; }})()"
        ),
    )
    .await;
    let [stored, streamed] = [0, 1].map(|i| heights[i].as_f64().unwrap());
    assert!(
        (stored - streamed).abs() < 1.0,
        "stored {stored} px, streamed {streamed} px"
    );
    let answer_el = "document.querySelector('.message.assistant.rendered')";
    // Code: highlighted, labelled, with a Copy button; a long line scrolls in its block.
    assert_eq!(
        eval(
            &page,
            &format!("{answer_el}.querySelector('.code-block .code-language').textContent")
        )
        .await,
        "rust"
    );
    assert_eq!(
        eval(
            &page,
            &format!("{answer_el}.querySelectorAll('.code-block .hljs-keyword').length > 0")
        )
        .await,
        true
    );
    assert_eq!(
        eval(
            &page,
            &format!("{answer_el}.querySelectorAll('.code-block .copy').length")
        )
        .await,
        2
    );
    assert_eq!(
        eval(
            &page,
            &format!(
                "(() => {{ const pre = {answer_el}.querySelectorAll('.code-block pre')[1]; \
                 const box = document.getElementById('messages'); \
                 return pre.scrollWidth > pre.clientWidth && box.scrollWidth <= box.clientWidth; }})()"
            )
        )
        .await,
        true
    );
    // Tables, quotes, inline code and task lists are styled.
    let styled = eval(
        &page,
        &format!(
            "(() => {{ const a = {answer_el}; const css = (s, p) => getComputedStyle(a.querySelector(s))[p]; \
             return [a.querySelector('.table-scroll table') !== null, css('th', 'borderTopStyle'), \
             css('blockquote', 'borderLeftStyle'), css(':not(pre) > code', 'backgroundColor') !== 'rgba(0, 0, 0, 0)', \
             a.querySelectorAll('input[type=checkbox]').length, css('li:has(> input)', 'listStyleType')]; }})()"
        ),
    )
    .await;
    assert_eq!(
        styled,
        serde_json::json!([true, "solid", "solid", true, 2, "none"])
    );
    // The whole answer is copied as its Markdown.
    eval(
        &page,
        "Object.defineProperty(navigator.clipboard, 'writeText', \
         { value: async (text) => { window.__copied = text; } })",
    )
    .await;
    click(&page, ".message.assistant.rendered .copy-message").await;
    wait_for(&page, "window.__copied !== undefined").await;
    assert_eq!(eval(&page, "window.__copied").await, answer.as_str());
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered .copy-message').textContent === 'Copied'",
    )
    .await;
    screenshot(&page, "markdown").await;
    browser.close().await;
}
