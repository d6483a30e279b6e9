//! What a turn did to the files, on the page, in headless Chromium (issue 44): a turn
//! whose WriteFile created a file gets a "files changed" card that survives a reload
//! and shows a file's diff when asked;
//! "Restore files to before this turn" asks first, then removes the file and says so;
//! the restore's own card undoes it; a file the person changed since is kept and
//! named as such; Undo asks whether the turn's files go back too. Screenshots at
//! desktop and phone widths, light and dark.

use crate::browser_support;
use crate::common;

use browser_support::{
    Chromium, click, eval, open_page, reload, screenshot_at, screenshots_in_each_scheme, send,
    set_viewport, wait_for,
};
use common::Server;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

const CARD: &str = "document.querySelector('.file-changes:not(.restored)')";
const RESTORED: &str = "document.querySelector('.file-changes.restored')";

/// Clicks the restore button of the turn's card and confirms in the dialog.
async fn restore(page: &chromiumoxide::Page) {
    click(
        page,
        ".file-changes:not(.restored) button[data-action='restore-files']",
    )
    .await;
    wait_for(page, "document.getElementById('restore-dialog').open").await;
    click(page, "#restore-confirm").await;
}

#[tokio::test]
async fn a_turns_file_changes_are_shown_restored_and_the_restore_undone() {
    let Some(browser) = Chromium::start("the files-changed card").await else {
        return;
    };
    let (s, workspace) = Server::with_checkpoints(&[("keep.txt", "kept\n")]).await;
    let notes = workspace.path().join("notes.txt");
    s.model.respond_with(|r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("Written.")
        } else {
            let args = serde_json::json!({"path": "notes.txt", "content": "hello\n"});
            ScriptedResponse::tool_calls([ToolCallSpec::new("w1", "WriteFile", args.to_string())])
        }
    });
    let page = open_page(&s, &browser).await;
    send(&page, "Write the notes.").await;
    wait_for(&page, &format!("{CARD}?.textContent.includes('notes.txt')")).await;
    let shown = eval(
        &page,
        &format!(
            "[{CARD}.querySelector('.file-changes-head').textContent, \
             {CARD}.querySelector('.change-kind').textContent, \
             {CARD}.querySelector('.change-path').textContent, \
             {CARD}.querySelector('.change-sizes').textContent]"
        ),
    )
    .await;
    assert_eq!(
        shown,
        serde_json::json!(["1 file changed", "created", "notes.txt", "none → 6 B"])
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "hello\n");

    screenshots_in_each_scheme(&page, "changes").await;
    set_viewport(&page, 1280, 800).await;

    // A file's diff, fetched when asked for.
    click(&page, ".file-change button[data-action='file-diff']").await;
    wait_for(
        &page,
        &format!("{CARD}?.querySelector('.diff .diff-add')?.textContent === '+hello'"),
    )
    .await;
    screenshot_at(&page, "changes-diff-desktop", 1280, 800).await;

    // The card is drawn from the stored timeline: the same after a reload.
    reload(&page).await;
    wait_for(&page, &format!("{CARD}?.textContent.includes('notes.txt')")).await;

    // Cancelled in the dialog: nothing happens.
    click(
        &page,
        ".file-changes:not(.restored) button[data-action='restore-files']",
    )
    .await;
    wait_for(&page, "document.getElementById('restore-dialog').open").await;
    click(&page, "#restore-cancel").await;
    wait_for(&page, "!document.getElementById('restore-dialog').open").await;
    assert!(notes.exists(), "a cancelled restore touches nothing");

    // Restored: the created file is gone, and the card says so.
    restore(&page).await;
    wait_for(
        &page,
        &format!(
            "{CARD}?.querySelector('.file-changes-status').textContent === 'Restored 1 file.'"
        ),
    )
    .await;
    assert!(!notes.exists(), "the turn's file is removed");
    wait_for(
        &page,
        &format!("{RESTORED}?.textContent.includes('notes.txt')"),
    )
    .await;
    screenshot_at(&page, "changes-restored-desktop", 1280, 800).await;

    // The restore undone: the file is back.
    click(
        &page,
        ".file-changes.restored button[data-action='undo-restore']",
    )
    .await;
    wait_for(
        &page,
        &format!(
            "{RESTORED}?.querySelector('.file-changes-status').textContent.startsWith('Undone.')"
        ),
    )
    .await;
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "hello\n");

    // Changed by the person since: kept, and named.
    std::fs::write(&notes, "mine\n").unwrap();
    restore(&page).await;
    wait_for(
        &page,
        &format!(
            "{CARD}?.querySelector('.file-changes-status').textContent.includes('Kept 1 file changed since: notes.txt')"
        ),
    )
    .await;
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine\n");
    assert_eq!(
        std::fs::read_to_string(workspace.path().join("keep.txt")).unwrap(),
        "kept\n"
    );

    // Undo asks whether the turn's files go back too: "Undo only" leaves them…
    std::fs::write(&notes, "hello\n").unwrap();
    click(&page, "#undo").await;
    wait_for(&page, "document.getElementById('undo-dialog').open").await;
    click(&page, "#undo-cancel").await;
    wait_for(&page, "!document.getElementById('undo-dialog').open").await;
    assert!(notes.exists(), "a cancelled undo touches nothing");
    // …and "Undo and restore files" takes the turn out and its file away.
    click(&page, "#undo").await;
    wait_for(&page, "document.getElementById('undo-dialog').open").await;
    click(&page, "#undo-with-files").await;
    wait_for(
        &page,
        "document.querySelector('.message.user')?.classList.contains('undone')",
    )
    .await;
    assert!(!notes.exists(), "the undone turn's file is restored away");
    browser.close().await;
}
