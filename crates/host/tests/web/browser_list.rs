//! The conversation list in headless Chromium: grouped by date, a row renamed in
//! place, deleted after a confirmation (which takes the focus) with a few seconds to
//! undo, rows reachable by keyboard as links to their address.

use crate::browser_support;
use crate::common;

use std::time::Duration;

use browser_support::{Chromium, click, eval, open_page, press, screenshot, wait_for};
use common::Server;
use reqwest::StatusCode;
use smallebot_testkit::ScriptedResponse;

#[tokio::test]
async fn rows_are_grouped_by_date_renamed_in_place_and_deleted_with_undo() {
    let Some(browser) = Chromium::start("conversation list").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let first = s.create().await;
    s.turn(&first, "the first one").await;
    let second = s.create().await;
    s.turn(&second, "the second one").await;
    let page = open_page(&s, &browser).await;
    // Loaded: the newest opened, its row marked, the message box focused.
    wait_for(
        &page,
        "document.querySelectorAll('#conversations li').length === 2 \
         && document.querySelector('#conversations li.active') !== null \
         && document.activeElement === document.getElementById('input')",
    )
    .await;
    // Grouped by date: both changed today.
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('#conversations .group')].map((h) => h.textContent)"
        )
        .await,
        serde_json::json!(["Today"])
    );
    let groups = eval(
        &page,
        "(async () => { const { dateGroup } = await import('/assets/js/list.js'); \
           const now = new Date(2026, 10, 26, 9, 0); \
           return [new Date(2026, 10, 26, 0, 5), new Date(2026, 10, 25, 23, 0), \
                   new Date(2026, 10, 20, 12, 0), new Date(2026, 10, 19, 12, 0)] \
             .map((d) => dateGroup(d, now)); })()",
    )
    .await;
    assert_eq!(
        groups,
        serde_json::json!(["Today", "Yesterday", "Last 7 days", "Older"])
    );
    // Rows are links to their address, reached by keyboard: Enter opens one.
    let row = |id: &str| format!("#conversations li[data-id=\"{id}\"]");
    assert_eq!(
        eval(
            &page,
            &format!(
                "document.querySelector('{} .row-link').getAttribute('href')",
                row(&first)
            )
        )
        .await,
        format!("/c/{first}")
    );
    eval(
        &page,
        &format!(
            "document.querySelector('{} .row-link').focus()",
            row(&first)
        ),
    )
    .await;
    // The list drawn again (as when a title arrives) keeps the focus on that row.
    eval(
        &page,
        "import('/assets/js/conversation.js').then((m) => m.loadConversations()).then(() => true)",
    )
    .await;
    assert_eq!(
        eval(
            &page,
            "document.activeElement.closest('li')?.dataset.id + ' ' + document.activeElement.className"
        )
        .await,
        format!("{first} row-link")
    );
    press(&page, &format!("{} .row-link", row(&first)), "Enter").await;
    wait_for(&page, &format!("location.pathname === '/c/{first}'")).await;
    // Opened: its last read, the list, is drawn with the row marked (a list drawn after
    // the rename began would take the rename's box away).
    wait_for(
        &page,
        &format!(
            "document.querySelector('{} .row-link')?.getAttribute('aria-current') === 'page'",
            row(&first)
        ),
    )
    .await;
    // Renamed in place.
    click(&page, &format!("{} .rename", row(&first))).await;
    wait_for(
        &page,
        "document.activeElement?.classList.contains('rename-input')",
    )
    .await;
    eval(&page, "document.activeElement.value = 'Renamed by hand'").await;
    press(&page, ".rename-input", "Enter").await;
    wait_for(
        &page,
        &format!(
            "document.querySelector('{} .row-link')?.textContent === 'Renamed by hand'",
            row(&first)
        ),
    )
    .await;
    let stored = s.get_json(&format!("/api/conversations/{first}")).await;
    assert_eq!(stored["conversation"]["title"], "Renamed by hand");
    // Deleted after a confirmation that takes the focus; Undo keeps it.
    click(&page, &format!("{} .delete", row(&second))).await;
    wait_for(&page, "document.getElementById('delete-dialog').open").await;
    assert_eq!(
        eval(
            &page,
            "document.getElementById('delete-dialog').contains(document.activeElement)"
        )
        .await,
        true
    );
    screenshot(&page, "delete-confirmation").await;
    click(&page, "#delete-confirm").await;
    wait_for(
        &page,
        &format!("document.querySelector('{}').hidden", row(&second)),
    )
    .await;
    wait_for(&page, "!document.getElementById('undo-notice').hidden").await;
    click(&page, "#undo-delete").await;
    wait_for(
        &page,
        &format!("!document.querySelector('{}').hidden", row(&second)),
    )
    .await;
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(
        status_of(&s, &second).await,
        StatusCode::OK,
        "undone, yet deleted"
    );
    // Without Undo, it is deleted once the seconds are over.
    click(&page, &format!("{} .delete", row(&second))).await;
    wait_for(&page, "document.getElementById('delete-dialog').open").await;
    click(&page, "#delete-confirm").await;
    assert_eq!(
        status_of(&s, &second).await,
        StatusCode::OK,
        "deleted before the undo time was over"
    );
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert_eq!(status_of(&s, &second).await, StatusCode::NOT_FOUND);
    browser.close().await;
}

/// The status `GET /api/conversations/{id}` answers.
async fn status_of(s: &Server, id: &str) -> StatusCode {
    s.http
        .get(s.url(&format!("/api/conversations/{id}")))
        .send()
        .await
        .unwrap()
        .status()
}
