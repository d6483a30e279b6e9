//! Answers as Markdown in headless Chromium: rendered while they stream (no raw `**`,
//! the same layout as once stored), code labelled with its language and a Copy button
//! and highlighted as it comes near the view, tables, quotes, inline code and task lists
//! styled, long lines scrolling inside their block, a whole answer copied; an image the
//! page cannot load shown as a link with its alt text.

use crate::browser_support;
use crate::common;

use std::time::Duration;

use browser_support::{Chromium, click, eval, open_page, reload, screenshot, send, wait_for};
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
    // the same height (every block laid out: the page lays out only those near the
    // view).
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
               for (const block of document.querySelectorAll('.md-part > *')) block.style.contentVisibility = 'visible'; \
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
    // Highlighted once in view (blocks are highlighted as they come near the view).
    wait_for(
        &page,
        &format!("{answer_el}.querySelectorAll('.code-block .hljs-keyword').length > 0"),
    )
    .await;
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

#[tokio::test]
async fn an_image_the_page_cannot_load_is_a_link_with_its_alt_text() {
    let Some(browser) = Chromium::start("images in answers").await else {
        return;
    };
    let s = Server::start().await;
    let dot = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    s.model.push(ScriptedResponse::text(format!(
        "Here: ![the sales chart](https://example.com/chart.png)\n\n\
         Raw: <img src=\"https://example.com/pixel.gif\" alt=\"a tracking pixel\">\n\n\
         A dot: ![a dot]({dot})\n\nThe end."
    )));
    let page = open_page(&s, &browser).await;
    // Whatever the policy blocks is noted: nothing should even be tried.
    eval(
        &page,
        "(() => { window.__blocked = []; document.addEventListener('securitypolicyviolation', \
           (e) => window.__blocked.push(e.blockedURI)); return true; })()",
    )
    .await;
    send(&page, "show me the chart").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('The end.')",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let bubble = "document.querySelector('.message.assistant.rendered')";
    assert_eq!(
        eval(
            &page,
            &format!(
                "[[...{bubble}.querySelectorAll('a')].map((a) => [a.textContent, a.getAttribute('href')]), \
                  [...{bubble}.querySelectorAll('img')].map((i) => [i.alt, i.src.startsWith('data:image/png'), i.complete && i.naturalWidth > 0, getComputedStyle(i).maxWidth]), \
                  window.__blocked]"
            )
        )
        .await,
        serde_json::json!([
            [
                ["the sales chart", "https://example.com/chart.png"],
                ["a tracking pixel", "https://example.com/pixel.gif"]
            ],
            [["a dot", true, true, "100%"]],
            []
        ])
    );
    screenshot(&page, "image-links").await;
    browser.close().await;
}

#[tokio::test]
async fn a_long_answers_blocks_are_laid_out_and_highlighted_as_they_come_near_the_view() {
    let Some(browser) = Chromium::start("lazy highlighting").await else {
        return;
    };
    let s = Server::start().await;
    let blocks: Vec<String> = (0..80)
        .map(|i| format!("Step {i}.\n\n```rust\nfn step_{i}() -> u32 {{\n    {i}\n}}\n```"))
        .collect();
    s.model.push(ScriptedResponse::text(format!(
        "{}\n\nThe end.",
        blocks.join("\n\n")
    )));
    let page = open_page(&s, &browser).await;
    send(&page, "show me many steps").await;
    let code = "document.querySelectorAll('.message.assistant.rendered pre code')";
    wait_for(&page, &format!("{code}[79]?.classList.contains('hljs')")).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    // Opened again (while it streamed, the first block was in view and may have been
    // highlighted then): the end is in view and highlighted; the first block, thousands
    // of pixels above, is labelled but not highlighted yet.
    reload(&page).await;
    wait_for(&page, &format!("{code}[79]?.classList.contains('hljs')")).await;
    assert_eq!(
        eval(
            &page,
            &format!("[{code}[0].classList.contains('hljs'), {code}.length, document.querySelectorAll('.message.assistant.rendered .code-language').length]")
        )
        .await,
        serde_json::json!([false, 80, 80])
    );
    // Only the blocks near the view are laid out: the first one's code is skipped by the
    // browser (`content-visibility: auto`), the last one's is rendered.
    let rendered =
        |i: usize| format!("{code}[{i}].checkVisibility({{ contentVisibilityAuto: true }})");
    assert_eq!(
        eval(&page, &format!("[{}, {}]", rendered(0), rendered(79))).await,
        serde_json::json!([false, true])
    );
    // Scrolled to, it is highlighted.
    eval(&page, &format!("{code}[0].scrollIntoView(); true")).await;
    wait_for(
        &page,
        &format!("{code}[0].querySelectorAll('.hljs-keyword').length > 0"),
    )
    .await;
    screenshot(&page, "long-answer-scrolled-up").await;
    eval(
        &page,
        &format!("{code}[40].scrollIntoView({{block: 'center'}}); true"),
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    screenshot(&page, "long-answer-middle").await;
    browser.close().await;
}
