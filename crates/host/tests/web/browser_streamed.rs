//! A streamed answer becomes the stored one in headless Chromium: the bubble it
//! streamed into is kept (not drawn again) when the server renders the stored answer
//! the same, and replaced by the stored rendering when it does not (a link whose
//! reference is defined in a later block); more finished text than one request holds is
//! rendered a part at a time.

use crate::browser_support;
use crate::common;

use std::time::Duration;

use browser_support::{
    Chromium, eval, open_page, reload, screenshot, send, set_viewport, wait_for,
};
use common::Server;
use smallebot_testkit::{Gate, ScriptedResponse};

/// Streams `answer` (paused after a few pieces), marks the streaming bubble, lets the
/// rest come and waits until the stored answer ending in `end` is shown.
async fn stream_and_mark(
    s: &Server,
    page: &chromiumoxide::page::Page,
    text: &str,
    answer: &str,
    end: &str,
) {
    let rest = Gate::new();
    s.model.push(
        ScriptedResponse::text(answer)
            .chunk_size(7)
            .delay_between(Duration::from_millis(5))
            .pause_after_chunks(4, &rest),
    );
    send(page, text).await;
    wait_for(
        page,
        "document.querySelector('.message.assistant.streaming')?.textContent.length > 0",
    )
    .await;
    eval(
        page,
        "(() => { document.querySelector('.message.assistant.streaming').dataset.streamed = 'yes'; return true; })()",
    )
    .await;
    rest.open();
    wait_for(
        page,
        &format!(
            "!document.getElementById('input').disabled && [...document.querySelectorAll('.message.assistant.rendered')].some((b) => b.textContent.includes({end:?}))"
        ),
    )
    .await;
}

#[tokio::test]
async fn a_streamed_answer_is_kept_as_the_stored_one_when_rendered_the_same() {
    let Some(browser) = Chromium::start("streamed answer kept").await else {
        return;
    };
    let s = Server::start().await;
    let page = open_page(&s, &browser).await;
    let sections: String = (0..12)
        .map(|i| {
            format!(
                "## Part {i}\n\nSome **bold** words and `code` in part {i}.\n\n\
                 ```rust\nfn part_{i}() -> u32 {{ {i} }}\n```\n\n| a | b |\n|---|---|\n| {i} | x |\n\n"
            )
        })
        .collect();
    let answer = format!("{sections}The end.");
    stream_and_mark(&s, &page, "a long answer", &answer, "The end.").await;
    let last = "[...document.querySelectorAll('.message.assistant.rendered')].at(-1)";
    let kept = eval(
        &page,
        &format!(
            "(() => {{ const b = {last}; return [b.dataset.streamed, b.classList.contains('streaming'), \
             b.dataset.id !== undefined, b.dataset.seq !== undefined, \
             b.querySelectorAll('.message-actions').length, b.querySelectorAll('.md-open > *').length, \
             b.querySelector('.message-actions .copy-message') !== null, \
             b.querySelector('.message-actions .regenerate') !== null, \
             b.querySelectorAll('.code-block .copy').length, b.querySelectorAll('.table-scroll').length, \
             b.querySelectorAll('h2').length]; }})()"
        ),
    )
    .await;
    assert_eq!(
        kept,
        serde_json::json!(["yes", false, true, true, 1, 0, true, true, 12, 12, 12])
    );
    // Laid out as the stored answer is: drawn again from the stored timeline (a reload),
    // the answer takes the same height.
    for (width, name) in [
        (390, "streamed-kept-phone"),
        (1280, "streamed-kept-desktop"),
    ] {
        set_viewport(&page, width, 900).await;
        // The list's drawer slides away when the width becomes a phone's.
        tokio::time::sleep(Duration::from_millis(400)).await;
        screenshot(&page, name).await;
    }
    // Every block laid out (the page lays out only those near the view).
    let all_laid_out = "document.querySelectorAll('.md-part > *')\
         .forEach((block) => (block.style.contentVisibility = 'visible'))";
    eval(&page, all_laid_out).await;
    let streamed_height = eval(&page, &format!("{last}.getBoundingClientRect().height")).await;
    reload(&page).await;
    wait_for(
        &page,
        "!document.getElementById('input').disabled && document.querySelectorAll('.message.assistant.rendered').length === 1",
    )
    .await;
    eval(&page, all_laid_out).await;
    let stored = eval(
        &page,
        &format!("[{last}.dataset.streamed ?? null, {last}.getBoundingClientRect().height]"),
    )
    .await;
    assert_eq!(stored[0], serde_json::Value::Null);
    let (a, b) = (
        stored[1].as_f64().unwrap(),
        streamed_height.as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1.0, "stored {a} px, streamed {b} px");

    // A reference defined in a later block makes an earlier one a link only in the whole
    // answer: the stored rendering replaces the streamed bubble.
    let linked = "See [the docs][d] first.\n\nMore text here.\n\n[d]: https://example.com/docs\n\nThe last line.";
    stream_and_mark(&s, &page, "a linked answer", linked, "The last line.").await;
    let replaced = eval(
        &page,
        &format!(
            "(() => {{ const b = {last}; return [b.dataset.streamed ?? null, \
             b.querySelector('a[href=\"https://example.com/docs\"]')?.textContent ?? null]; }})()"
        ),
    )
    .await;
    assert_eq!(replaced, serde_json::json!([null, "the docs"]));
}

#[tokio::test]
async fn more_than_a_request_holds_arriving_at_once_is_rendered_a_part_at_a_time() {
    let Some(browser) = Chromium::start("streamed burst").await else {
        return;
    };
    let s = Server::start().await;
    let page = open_page(&s, &browser).await;
    // Over 1 MiB of finished blocks in one delta (a model far ahead of the page): more
    // than the server takes in one request, so it is rendered a part at a time, never
    // shown as raw text.
    let shown = eval(
        &page,
        "(async () => { const { MarkdownStream } = await import('/assets/js/markdown.js'); \
           const bubble = document.createElement('div'); \
           bubble.className = 'message assistant streaming'; \
           document.getElementById('messages').append(bubble); \
           const stream = new MarkdownStream(bubble); \
           const text = Array.from({ length: 15000 }, (_, i) => \
             `## Part ${i}\\n\\nSome **bold** words in part ${i}, to make a long answer longer.\\n\\n`).join(''); \
           stream.push(text); \
           const html = await stream.finish(); \
           return [text.length > 1048576, html !== null, bubble.textContent.includes('**'), \
             bubble.querySelectorAll('.md-part').length > 1, bubble.querySelectorAll('h2').length]; })()",
    )
    .await;
    assert_eq!(shown, serde_json::json!([true, true, false, true, 15000]));
}
