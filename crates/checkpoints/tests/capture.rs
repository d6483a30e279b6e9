//! Captures on a real folder: what changed since the last capture, contents kept once,
//! limits and ignore rules.

use std::fs;
use std::path::Path;

use smallebot_checkpoints::{
    ChangeKind, CheckpointError, ContentStore, FolderStore, IgnoreRules, Limits, Workspace,
};

mod support;
use support::{Result, kinds, setup, ws_path};

#[test]
fn nothing_changed_is_no_change() -> Result {
    let (dir, mut ws, store) = setup(Limits::default())?;
    fs::write(ws_path(&dir, "a.txt"), "a")?;
    assert!(ws.baseline(&store)?.is_empty());
    assert_eq!(ws.indexed(), 1);
    assert!(ws.capture(&store)?.is_empty());
    Ok(())
}

#[test]
fn created_modified_deleted_and_renamed() -> Result {
    let (dir, mut ws, store) = setup(Limits::default())?;
    for (name, text) in [("c.txt", "c"), ("d.txt", "d"), ("m.txt", "m")] {
        fs::write(ws_path(&dir, name), text)?;
    }
    ws.baseline(&store)?;
    fs::write(ws_path(&dir, "a.txt"), "a")?;
    fs::remove_file(ws_path(&dir, "c.txt"))?;
    fs::rename(ws_path(&dir, "d.txt"), ws_path(&dir, "e.txt"))?;
    fs::write(ws_path(&dir, "m.txt"), "changed")?;
    let capture = ws.capture(&store)?;
    assert_eq!(
        kinds(&capture),
        vec![
            ("a.txt".to_owned(), ChangeKind::Created, None),
            ("c.txt".to_owned(), ChangeKind::Deleted, None),
            (
                "e.txt".to_owned(),
                ChangeKind::Renamed,
                Some("d.txt".to_owned())
            ),
            ("m.txt".to_owned(), ChangeKind::Modified, None),
        ]
    );
    // Every content on both sides is kept.
    for change in &capture.changes {
        for state in [&change.before, &change.after].into_iter().flatten() {
            assert!(store.has(&state.sha256)?, "{} not kept", change.path);
        }
    }
    // The deleted file's content is the one from before.
    let deleted = &capture.changes[1];
    let kept = deleted.before.as_ref().map(|s| store.get(&s.sha256));
    assert_eq!(kept.transpose()?.flatten(), Some(b"c".to_vec()));
    Ok(())
}

#[test]
fn a_touched_file_with_the_same_content_is_no_change() -> Result {
    let (dir, mut ws, store) = setup(Limits::default())?;
    fs::write(ws_path(&dir, "a.txt"), "same")?;
    ws.baseline(&store)?;
    fs::remove_file(ws_path(&dir, "a.txt"))?;
    fs::write(ws_path(&dir, "a.txt"), "same")?;
    assert!(ws.capture(&store)?.is_empty());
    Ok(())
}

#[test]
fn files_in_subfolders_and_ignored_folders() -> Result {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("ws");
    fs::create_dir_all(root.join("src/deep"))?;
    fs::create_dir_all(root.join("target/debug"))?;
    fs::create_dir_all(root.join("logs"))?;
    let store = FolderStore::open(&dir.path().join("contents"))?;
    let rules = IgnoreRules::with_defaults(&["logs/"], Some("*.o\n"))?;
    let mut ws = Workspace::open(&root, rules, Limits::default())?;
    ws.baseline(&store)?;
    fs::write(root.join("src/deep/x.rs"), "x")?;
    fs::write(root.join("target/debug/bin"), "b")?;
    fs::write(root.join("logs/today"), "l")?;
    fs::write(root.join("src/x.o"), "o")?;
    let capture = ws.capture(&store)?;
    assert_eq!(
        kinds(&capture),
        vec![("src/deep/x.rs".to_owned(), ChangeKind::Created, None)]
    );
    Ok(())
}

#[test]
fn over_the_file_limit_is_not_captured_with_the_reason() -> Result {
    let (dir, mut ws, store) = setup(Limits {
        file_bytes: 4,
        capture_bytes: 1000,
    })?;
    ws.baseline(&store)?;
    fs::write(ws_path(&dir, "big.bin"), "12345")?;
    fs::write(ws_path(&dir, "ok.txt"), "1234")?;
    let capture = ws.capture(&store)?;
    assert_eq!(
        kinds(&capture),
        vec![("ok.txt".to_owned(), ChangeKind::Created, None)]
    );
    assert_eq!(capture.not_captured.len(), 1);
    let missing = &capture.not_captured[0];
    assert_eq!(
        (missing.path.as_str(), missing.kind),
        ("big.bin", ChangeKind::Created)
    );
    assert!(
        missing.reason.contains("per-file limit of 4"),
        "{}",
        missing.reason
    );
    Ok(())
}

#[test]
fn over_the_capture_limit_is_not_captured_with_the_reason() -> Result {
    let (dir, mut ws, store) = setup(Limits {
        file_bytes: 100,
        capture_bytes: 5,
    })?;
    ws.baseline(&store)?;
    fs::write(ws_path(&dir, "a.txt"), "aaaa")?;
    fs::write(ws_path(&dir, "b.txt"), "bbbb")?;
    let capture = ws.capture(&store)?;
    assert_eq!(capture.changes.len(), 1);
    assert_eq!(capture.not_captured.len(), 1);
    assert!(
        capture.not_captured[0].reason.contains("limit of 5 bytes"),
        "{}",
        capture.not_captured[0].reason
    );
    Ok(())
}

#[test]
fn links_are_neither_followed_nor_listed() -> Result {
    let (dir, mut ws, store) = setup(Limits::default())?;
    let outside = dir.path().join("outside");
    fs::create_dir(&outside)?;
    fs::write(outside.join("secret"), "s")?;
    ws.baseline(&store)?;
    std::os::unix::fs::symlink(&outside, ws_path(&dir, "out"))?;
    std::os::unix::fs::symlink(outside.join("secret"), ws_path(&dir, "s"))?;
    assert!(ws.capture(&store)?.is_empty());
    Ok(())
}

#[test]
fn a_missing_workspace_is_a_clear_error() {
    let dir = Path::new("/nonexistent-smallebot-workspace");
    let rules = IgnoreRules::with_defaults::<&str>(&[], None);
    let err = rules.map_err(|e| e.to_string()).and_then(|rules| {
        Workspace::open(dir, rules, Limits::default()).map_err(|e| e.to_string())
    });
    match err {
        Err(message) => assert!(
            message.contains("nonexistent-smallebot-workspace"),
            "{message}"
        ),
        Ok(_) => panic!("a missing workspace opened"),
    }
}

#[test]
fn a_digest_that_is_not_one_is_refused_by_the_store() -> Result {
    let dir = tempfile::tempdir()?;
    let store = FolderStore::open(dir.path())?;
    assert!(matches!(
        store.put("../../etc/passwd", b"x"),
        Err(CheckpointError::Store { .. })
    ));
    Ok(())
}

#[test]
fn a_file_over_the_limit_that_changes_at_the_same_size_is_still_listed() -> Result {
    let (dir, mut ws, store) = setup(Limits {
        file_bytes: 4,
        capture_bytes: 1000,
    })?;
    fs::write(ws_path(&dir, "big.bin"), "12345")?;
    assert_eq!(ws.baseline(&store)?.len(), 1);
    // Another inode and content, the same size: the reason's text is the same.
    fs::remove_file(ws_path(&dir, "big.bin"))?;
    fs::write(ws_path(&dir, "big.bin"), "54321")?;
    let capture = ws.capture(&store)?;
    assert_eq!(capture.not_captured.len(), 1, "{capture:?}");
    assert_eq!(capture.not_captured[0].kind, ChangeKind::Modified);
    Ok(())
}

#[test]
fn a_change_that_keeps_size_mtime_and_inode_is_seen_while_the_file_is_recent() -> Result {
    let (dir, mut ws, store) = setup(Limits::default())?;
    let path = ws_path(&dir, "a.txt");
    fs::write(&path, "aaaa")?;
    ws.baseline(&store)?;
    let modified = fs::metadata(&path)?.modified()?;
    // Rewritten in place (same inode, same size), its time set back: the stamp is
    // what the index holds, as after a write in the same tick of the clock.
    fs::write(&path, "bbbb")?;
    fs::File::options()
        .write(true)
        .open(&path)?
        .set_modified(modified)?;
    let capture = ws.capture(&store)?;
    assert_eq!(
        kinds(&capture),
        vec![("a.txt".to_owned(), ChangeKind::Modified, None)]
    );
    Ok(())
}
