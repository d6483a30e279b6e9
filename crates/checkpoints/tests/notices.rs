//! Captures driven by change notifications (Linux): after the first look, a capture
//! examines only what the kernel said changed — and still sees every change a scan
//! would, through created, moved and removed folders.
#![cfg(target_os = "linux")]

use std::fs;
use std::time::{Duration, SystemTime};

use smallebot_checkpoints::{ChangeKind, FolderStore, IgnoreRules, Limits, Workspace};

mod support;
use support::{Result, kinds, setup, ws_path};

/// A time long past: a file stamped with it is not "recent", so a scan trusts its stamp.
fn long_ago() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000)
}

fn stamp_long_ago(path: &std::path::Path) -> Result {
    fs::File::options()
        .write(true)
        .open(path)?
        .set_modified(long_ago())?;
    Ok(())
}

/// Stamps `rel` long ago (a capture takes that in), rewrites it in place at the same
/// size and stamps it so again: the next capture must list it modified, and only once.
fn a_stamp_keeping_rewrite_is_seen(
    ws: &mut Workspace,
    store: &FolderStore,
    dir: &tempfile::TempDir,
    rel: &str,
) -> Result {
    let path = ws_path(dir, rel);
    stamp_long_ago(&path)?;
    ws.capture(store)?;
    let text = fs::read(&path)?.to_ascii_uppercase();
    fs::write(&path, text)?;
    stamp_long_ago(&path)?;
    assert_eq!(
        kinds(&ws.capture(store)?),
        vec![(rel.to_owned(), ChangeKind::Modified, None)]
    );
    assert!(ws.capture(store)?.is_empty(), "seen once, not again");
    Ok(())
}

#[test]
fn a_change_that_keeps_the_stamp_of_an_old_file_is_seen() -> Result {
    let (dir, mut ws, store) = setup(Limits::default())?;
    fs::write(ws_path(&dir, "old.txt"), "aaaa")?;
    ws.baseline(&store)?;
    // Same inode, same size, the same old time: a scan of stamps cannot tell; the
    // notice of the write does.
    a_stamp_keeping_rewrite_is_seen(&mut ws, &store, &dir, "old.txt")
}

#[test]
fn files_in_a_new_folder_are_seen_and_so_are_their_later_changes() -> Result {
    let (dir, mut ws, store) = setup(Limits::default())?;
    ws.baseline(&store)?;
    fs::create_dir_all(ws_path(&dir, "new/deeper"))?;
    fs::write(ws_path(&dir, "new/deeper/f.txt"), "f")?;
    fs::write(ws_path(&dir, "new/g.txt"), "g")?;
    assert_eq!(
        kinds(&ws.capture(&store)?),
        vec![
            ("new/deeper/f.txt".to_owned(), ChangeKind::Created, None),
            ("new/g.txt".to_owned(), ChangeKind::Created, None),
        ]
    );
    // The new folders are watched now: a stamp-keeping change inside is seen.
    a_stamp_keeping_rewrite_is_seen(&mut ws, &store, &dir, "new/deeper/f.txt")
}

#[test]
fn a_moved_folder_is_its_files_renamed_and_is_watched_where_it_went() -> Result {
    let (dir, mut ws, store) = setup(Limits::default())?;
    fs::create_dir_all(ws_path(&dir, "a/b"))?;
    fs::write(ws_path(&dir, "a/b/one.txt"), "one")?;
    fs::write(ws_path(&dir, "a-sibling.txt"), "sibling")?;
    ws.baseline(&store)?;
    fs::rename(ws_path(&dir, "a"), ws_path(&dir, "z"))?;
    assert_eq!(
        kinds(&ws.capture(&store)?),
        vec![(
            "z/b/one.txt".to_owned(),
            ChangeKind::Renamed,
            Some("a/b/one.txt".to_owned())
        )]
    );
    a_stamp_keeping_rewrite_is_seen(&mut ws, &store, &dir, "z/b/one.txt")
}

#[test]
fn a_removed_folder_is_its_files_deleted_and_a_file_may_take_its_name() -> Result {
    let (dir, mut ws, store) = setup(Limits::default())?;
    fs::create_dir_all(ws_path(&dir, "gone/inner"))?;
    fs::write(ws_path(&dir, "gone/inner/x.txt"), "x")?;
    fs::write(ws_path(&dir, "gone/y.txt"), "y")?;
    ws.baseline(&store)?;
    fs::remove_dir_all(ws_path(&dir, "gone"))?;
    fs::write(ws_path(&dir, "gone"), "a file now")?;
    assert_eq!(
        kinds(&ws.capture(&store)?),
        vec![
            ("gone".to_owned(), ChangeKind::Created, None),
            ("gone/inner/x.txt".to_owned(), ChangeKind::Deleted, None),
            ("gone/y.txt".to_owned(), ChangeKind::Deleted, None),
        ]
    );
    assert_eq!(ws.indexed(), 1);
    Ok(())
}

#[test]
fn ignored_folders_made_later_stay_out_and_links_are_not_followed() -> Result {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("ws");
    let outside = dir.path().join("outside");
    fs::create_dir_all(&root)?;
    fs::create_dir_all(&outside)?;
    fs::write(outside.join("secret.txt"), "s")?;
    let store = FolderStore::open(&dir.path().join("contents"))?;
    let rules = IgnoreRules::with_defaults::<&str>(&[], None)?;
    let mut ws = Workspace::open(&root, rules, Limits::default())?;
    ws.baseline(&store)?;
    fs::create_dir_all(root.join("target/debug"))?;
    fs::write(root.join("target/debug/bin"), "b")?;
    std::os::unix::fs::symlink(&outside, root.join("out"))?;
    std::os::unix::fs::symlink(outside.join("secret.txt"), root.join("secret.txt"))?;
    assert!(ws.capture(&store)?.is_empty());
    // A change through the link, outside, is nothing of the workspace's.
    fs::write(outside.join("secret.txt"), "changed")?;
    fs::write(outside.join("more.txt"), "m")?;
    assert!(ws.capture(&store)?.is_empty());
    Ok(())
}

#[test]
fn more_changes_than_the_kernel_queues_are_each_seen_by_a_scan() -> Result {
    let (dir, mut ws, store) = setup(Limits::default())?;
    fs::write(ws_path(&dir, "a.txt"), "a")?;
    ws.baseline(&store)?;
    // Each new file is three notices (created, written, closed): 18 000 overflow the
    // kernel's default queue of 16 384, and the capture falls back to a whole scan.
    let files = std::fs::read_to_string("/proc/sys/fs/inotify/max_queued_events")
        .ok()
        .and_then(|n| n.trim().parse::<usize>().ok())
        .map_or(6_000, |queued| queued / 3 + 500);
    for k in 0..files {
        fs::write(ws_path(&dir, &format!("f{k}.txt")), format!("{k}"))?;
    }
    let capture = ws.capture(&store)?;
    assert_eq!(capture.changes.len(), files);
    assert!(
        capture
            .changes
            .iter()
            .all(|c| c.kind == ChangeKind::Created)
    );
    fs::remove_file(ws_path(&dir, "a.txt"))?;
    assert_eq!(
        kinds(&ws.capture(&store)?),
        vec![("a.txt".to_owned(), ChangeKind::Deleted, None)]
    );
    Ok(())
}
