//! Change notifications beneath a root (Linux): a folder is watched through a handle
//! resolved like any other path (a link is refused, never followed out), and each
//! notice names the watched folder and the entry.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;

use smallebot_confined::{ConfinedError, EntryChange, Links, Notice, Root, Watcher};

#[test]
fn notices_name_the_folder_and_the_entry_and_what_happened() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    fs::create_dir_all(ws.join("sub")).unwrap();
    let root = Root::open(&ws, Links::Refuse).unwrap();
    let watcher = Watcher::new().unwrap();
    let top = watcher.watch(&root, ".").unwrap();
    let sub = watcher.watch(&root, "sub").unwrap();
    assert_ne!(top, sub);
    assert!(watcher.drain().unwrap().is_empty(), "nothing happened yet");

    fs::write(ws.join("sub/a.txt"), "a").unwrap();
    fs::create_dir(ws.join("made")).unwrap();
    fs::remove_dir(ws.join("sub")).err(); // not empty: refused, no notice
    fs::remove_file(ws.join("sub/a.txt")).unwrap();
    fs::remove_dir(ws.join("sub")).unwrap();
    let notices = watcher.drain().unwrap();
    let entry = |folder, name: &str, dir, change| Notice::Entry {
        folder,
        name: name.to_owned(),
        dir,
        change,
    };
    assert!(notices.contains(&entry(sub, "a.txt", false, EntryChange::Arrived)));
    assert!(notices.contains(&entry(sub, "a.txt", false, EntryChange::Written)));
    assert!(notices.contains(&entry(top, "made", true, EntryChange::Arrived)));
    assert!(notices.contains(&entry(sub, "a.txt", false, EntryChange::Gone)));
    assert!(notices.contains(&entry(top, "sub", true, EntryChange::Gone)));
    assert!(notices.contains(&Notice::FolderGone(sub)));
    assert!(watcher.drain().unwrap().is_empty(), "drained");
}

#[test]
fn a_link_is_never_watched_through() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let outside = dir.path().join("outside");
    fs::create_dir_all(&ws).unwrap();
    fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, ws.join("out")).unwrap();
    let root = Root::open(&ws, Links::Refuse).unwrap();
    let watcher = Watcher::new().unwrap();
    let refused = watcher.watch(&root, "out").unwrap_err();
    assert!(matches!(refused, ConfinedError::Link { .. }), "{refused}");
    let refused = watcher.watch(&root, "../outside").unwrap_err();
    assert!(
        matches!(refused, ConfinedError::NotRelative { .. }),
        "{refused}"
    );
    fs::write(outside.join("x"), "x").unwrap();
    assert!(watcher.drain().unwrap().is_empty());
}

#[test]
fn a_watched_folder_keeps_its_watch_where_it_is_moved() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    fs::create_dir_all(ws.join("a")).unwrap();
    let root = Root::open(&ws, Links::Refuse).unwrap();
    let watcher = Watcher::new().unwrap();
    let a = watcher.watch(&root, "a").unwrap();
    // The watch is on the folder resolved, not on its path.
    fs::rename(ws.join("a"), ws.join("b")).unwrap();
    assert_eq!(watcher.drain().unwrap(), vec![Notice::FolderGone(a)]);
    fs::write(ws.join("b/x"), "x").unwrap();
    let notices = watcher.drain().unwrap();
    assert!(notices.contains(&Notice::Entry {
        folder: a,
        name: "x".into(),
        dir: false,
        change: EntryChange::Arrived,
    }));
    watcher.unwatch(a);
    fs::write(ws.join("b/y"), "y").unwrap();
    assert!(watcher.drain().unwrap().iter().all(|n| !matches!(
        n,
        Notice::Entry { name, .. } if name == "y"
    )));
}
