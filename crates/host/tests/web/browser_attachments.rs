//! Attachments on the page in headless Chromium: a file picked with the attach button,
//! one dropped on the composer and one pasted show as chips (removable) and are sent
//! with a new conversation's first message; the model gets the image, the message
//! shows its thumbnails and a file chip, after a reload too. Screenshots at phone and
//! desktop widths, light and dark, under `target/ui-screenshots/`.

use crate::attachments::{limited_server, server};
use crate::browser_support;
use smallebot_core::rules::attachment::AttachmentLimits;
use smallebot_testkit::ScriptedResponse;

use browser_support::{
    Chromium, click, eval, open_page, prefer_scheme, reload, screenshot, send, set_viewport,
    wait_for,
};

/// A real 48×32 PNG (orange), so that the browser draws it.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAADAAAAAgCAIAAADbtmxLAAAAMUlEQVR42u3OQQ0AAAgEoItjRBObwxbOBxsByHS9EiEhISEhISEhISEhISEhISGhSwuhMSSIkm2ZyAAAAABJRU5ErkJggg==";

/// Script: a DataTransfer holding `file` (a JS expression for a File).
fn transfer(file: &str) -> String {
    format!("(() => {{ const t = new DataTransfer(); t.items.add({file}); return t; }})()")
}

fn png_file(name: &str) -> String {
    format!(
        "new File([Uint8Array.from(atob('{PNG}'), (c) => c.charCodeAt(0))], '{name}', \
         {{ type: 'image/png' }})"
    )
}

/// Script: `count` thumbnails drawn (the PNG loaded) in the user messages, and the
/// text file's chip.
fn thumbs_drawn(count: usize) -> String {
    format!(
        "(() => {{ const images = [...document.querySelectorAll('.message.user .thumb img')]; \
         return images.length === {count} && images.every((i) => i.complete && i.naturalWidth === 48) \
         && document.querySelector('.message.user a.file-chip')?.textContent.includes('notes.txt'); }})()"
    )
}

/// Drops `file` (a JS expression for a File) on the composer.
async fn drop_on_composer(page: &chromiumoxide::Page, file: &str) {
    eval(
        page,
        &format!(
            "document.getElementById('composer').dispatchEvent(new DragEvent('drop', \
             {{ dataTransfer: {}, bubbles: true, cancelable: true }}))",
            transfer(file)
        ),
    )
    .await;
}

#[tokio::test]
async fn files_picked_dropped_and_pasted_are_sent_and_shown_as_thumbnails() {
    let Some(browser) = Chromium::start("attachments on the page").await else {
        return;
    };
    let s = server(true).await;
    let page = open_page(&s, &browser).await;

    // The attach button's input, a drop on the composer, a paste in the message box.
    let picked = transfer(&png_file("picked.png"));
    eval(
        &page,
        &format!(
            "(() => {{ const input = document.getElementById('attach-input'); \
             input.files = {picked}.files; input.dispatchEvent(new Event('change')); return 1; }})()"
        ),
    )
    .await;
    drop_on_composer(
        &page,
        "new File(['a,b\\n1,2\\n'], 'notes.txt', { type: 'text/plain' })",
    )
    .await;
    let paste = format!(
        "document.getElementById('input').dispatchEvent(new ClipboardEvent('paste', \
         {{ clipboardData: {}, bubbles: true, cancelable: true }}))",
        transfer(&png_file("pasted.png"))
    );
    eval(&page, &paste).await;
    wait_for(
        &page,
        "document.querySelectorAll('#pending-files .file-chip').length === 3",
    )
    .await;
    // A chip's button removes its file; pasted again, it is back.
    click(&page, "#pending-files .file-chip:last-child .remove-file").await;
    wait_for(
        &page,
        "document.querySelectorAll('#pending-files .file-chip').length === 2",
    )
    .await;
    eval(&page, &paste).await;
    let chips = eval(
        &page,
        "[...document.querySelectorAll('#pending-files .file-name')].map((n) => n.textContent)",
    )
    .await;
    assert_eq!(
        chips,
        serde_json::json!(["picked.png", "notes.txt", "pasted.png"])
    );
    for (scheme, width, height, name) in [
        ("light", 1280, 900, "attachments-pending-desktop-light"),
        ("dark", 390, 844, "attachments-pending-phone-dark"),
    ] {
        prefer_scheme(&page, scheme).await;
        set_viewport(&page, width, height).await;
        // The list's drawer slides away when the width becomes a phone's.
        tokio::time::sleep(std::time::Duration::from_millis(400)).await;
        screenshot(&page, name).await;
    }
    prefer_scheme(&page, "light").await;
    set_viewport(&page, 1280, 900).await;

    s.model.push(ScriptedResponse::text(
        "Two orange squares and a small CSV.",
    ));
    send(&page, "what is in these?").await;
    wait_for(&page, &thumbs_drawn(2)).await;
    wait_for(&page, "document.getElementById('pending-files').hidden").await;
    let request = s.turn_requests().pop().unwrap();
    let images = request
        .last_user_parts()
        .iter()
        .filter(|p| p["type"] == "image_url")
        .count();
    assert_eq!(images, 2);
    wait_for(
        &page,
        "document.querySelector('.message.assistant')?.textContent.includes('orange squares')",
    )
    .await;
    let listed = s.get_json("/api/conversations").await;
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");

    reload(&page).await;
    wait_for(&page, &thumbs_drawn(2)).await;
    let link = eval(
        &page,
        "document.querySelector('.message.user .thumb').getAttribute('href')",
    )
    .await;
    assert!(link.as_str().unwrap().contains("/attachments/"), "{link}");
    for (scheme, width, height, name) in [
        ("light", 1280, 900, "attachments-sent-desktop-light"),
        ("dark", 1280, 900, "attachments-sent-desktop-dark"),
        ("light", 390, 844, "attachments-sent-phone-light"),
        ("dark", 390, 844, "attachments-sent-phone-dark"),
    ] {
        prefer_scheme(&page, scheme).await;
        set_viewport(&page, width, height).await;
        // The list's drawer slides away when the width becomes a phone's.
        tokio::time::sleep(std::time::Duration::from_millis(400)).await;
        screenshot(&page, name).await;
    }

    // In the stored conversation: uploaded into it and sent with the next message.
    s.model.push(ScriptedResponse::text("One more."));
    eval(&page, &paste).await;
    send(&page, "and this?").await;
    wait_for(&page, &thumbs_drawn(3)).await;
    assert_eq!(
        s.get_json("/api/conversations")
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
    browser.close().await;
}

#[tokio::test]
async fn a_refused_upload_leaves_no_conversation_and_keeps_the_draft() {
    let Some(browser) = Chromium::start("refused upload").await else {
        return;
    };
    let s = limited_server(AttachmentLimits {
        max_file_bytes: 1024,
        ..AttachmentLimits::default()
    })
    .await;
    let page = open_page(&s, &browser).await;
    drop_on_composer(
        &page,
        "new File(['x'.repeat(4096)], 'big.log', { type: 'text/plain' })",
    )
    .await;
    send(&page, "read this log").await;
    wait_for(
        &page,
        "!document.getElementById('error').hidden \
         && document.getElementById('error').textContent.includes('big.log')",
    )
    .await;
    assert_eq!(
        s.get_json("/api/conversations").await,
        serde_json::json!([])
    );
    assert_eq!(
        eval(&page, "document.getElementById('input').value").await,
        "read this log"
    );
    assert_eq!(
        eval(
            &page,
            "document.querySelectorAll('#pending-files .file-chip').length"
        )
        .await,
        1
    );
    assert_eq!(
        eval(&page, "document.querySelectorAll('.message.user').length").await,
        0
    );
    browser.close().await;
}
