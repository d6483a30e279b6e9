//! Versions in headless Chromium: after an edit and a regeneration the exchange shows
//! ‹ 3/3 ›, and the earlier versions are browsed in its place (the person's text as
//! text, the answers as the server rendered and sanitized them, at once).

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, open_page, screenshot, send, wait_for};
use common::Server;
use smallebot_testkit::ScriptedResponse;

const AT: &str = "document.querySelector('#messages .versions-at')?.textContent";

#[tokio::test]
async fn an_edited_and_regenerated_exchange_browses_its_earlier_versions() {
    let Some(browser) = Chromium::start("versions").await else {
        return;
    };
    let s = Server::start().await;
    s.model.push_all([
        ScriptedResponse::text("**first** answer <img src=x onerror=\"document.title='pwned'\">"),
        ScriptedResponse::text("**second** answer\n\n```rust\nfn main() {}\n```"),
        ScriptedResponse::text("third answer"),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "first <b>text</b>").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('first answer') \
         && !document.getElementById('input').disabled",
    )
    .await;
    // Edited: the first version is kept.
    click(&page, ".message.user .edit").await;
    eval(
        &page,
        "document.querySelector('textarea.edit-text').value = 'second text'",
    )
    .await;
    click(&page, ".save-edit").await;
    wait_for(
        &page,
        &format!("document.querySelector('.message.assistant.rendered')?.textContent.includes('second answer') && {AT} === '2/2' \
                  && !document.getElementById('input').disabled"),
    )
    .await;
    // Regenerated: the second version is kept too. (Each wait lasts until the turn has
    // ended: its end redraws the exchange, which would end the browsing below.)
    click(&page, ".message-actions .regenerate").await;
    wait_for(
        &page,
        &format!("document.querySelector('.message.assistant.rendered:not(.old-version)')?.textContent.includes('third answer') && {AT} === '3/3' \
                  && !document.getElementById('input').disabled"),
    )
    .await;
    assert_eq!(
        eval(&page, "document.querySelector('.versions-next').disabled").await,
        true
    );
    // An earlier answer is drawn as current ones are, at once: the server's rendering
    // of its Markdown (bold, a code block with its label), never its raw text.
    assert_eq!(
        eval(
            &page,
            "(() => { document.querySelector('.versions-prev').click(); \
             const old = document.querySelector('.message.assistant.old-version'); \
             return [old.querySelector('strong')?.textContent, \
                     old.querySelector('.code-block .code-language')?.textContent, \
                     old.textContent.includes('**')]; })()"
        )
        .await,
        serde_json::json!(["second", "rust", false])
    );
    wait_for(&page, &format!("{AT} === '2/3'")).await;
    wait_for(
        &page,
        "document.querySelector('.message.user.old-version')?.textContent === 'second text' \
         && document.querySelector('.message.assistant.old-version')?.textContent.includes('second answer')",
    )
    .await;
    // The current exchange is hidden meanwhile.
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('#messages .message:not(.old-version)')].filter((m) => m.offsetParent !== null).length"
        )
        .await,
        0
    );
    click(&page, ".versions-prev").await;
    wait_for(
        &page,
        &format!(
            "{AT} === '1/3' && document.querySelector('.message.user.old-version')?.textContent === 'first <b>text</b>' \
             && document.querySelector('.message.assistant.old-version strong')?.textContent === 'first'"
        ),
    )
    .await;
    assert_eq!(
        eval(
            &page,
            "document.querySelectorAll('#messages .old-version b, #messages [onerror]').length"
        )
        .await,
        0
    );
    screenshot(&page, "versions").await;
    // The timeline drawn again (as when a turn ends) keeps the version looked at.
    eval(
        &page,
        "import('/assets/js/conversation.js').then((m) => m.refresh()).then(() => true)",
    )
    .await;
    wait_for(
        &page,
        &format!(
            "{AT} === '1/3' && document.querySelector('.message.user.old-version')?.textContent === 'first <b>text</b>'"
        ),
    )
    .await;
    click(&page, ".versions-next").await;
    click(&page, ".versions-next").await;
    wait_for(
        &page,
        &format!(
            "{AT} === '3/3' && document.querySelector('.old-version') === null \
                  && document.querySelector('.message.assistant.rendered').offsetParent !== null"
        ),
    )
    .await;
    assert_ne!(eval(&page, "document.title").await, "pwned");
    browser.close().await;
}
