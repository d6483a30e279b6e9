//! Restores on a real folder: back to before a turn, conflicts kept, a restore undone.

use std::fs;
use std::path::PathBuf;

use smallebot_checkpoints::{FolderStore, IgnoreRules, Limits, Workspace, restore, targets};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

struct Fixture {
    dir: tempfile::TempDir,
    root: PathBuf,
    ws: Workspace,
    store: FolderStore,
}

/// A workspace holding c.txt and d.txt, indexed.
fn fixture() -> Result<Fixture> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("ws");
    fs::create_dir(&root)?;
    fs::write(root.join("c.txt"), "c")?;
    fs::write(root.join("d.txt"), "d")?;
    let store = FolderStore::open(&dir.path().join("contents"))?;
    let mut ws = Workspace::open(
        &root,
        IgnoreRules::with_defaults::<&str>(&[], None)?,
        Limits::default(),
    )?;
    ws.baseline(&store)?;
    Ok(Fixture {
        dir,
        root,
        ws,
        store,
    })
}

/// The turn of the acceptance scenario: a.txt written, then
/// `echo x > b.txt; rm c.txt; mv d.txt e.txt`.
fn turn(f: &Fixture) -> Result {
    fs::write(f.root.join("a.txt"), "a")?;
    fs::write(f.root.join("b.txt"), "x\n")?;
    fs::remove_file(f.root.join("c.txt"))?;
    fs::rename(f.root.join("d.txt"), f.root.join("e.txt"))?;
    Ok(())
}

fn names(f: &Fixture) -> Result<Vec<String>> {
    let mut out: Vec<String> = fs::read_dir(&f.root)?
        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<std::io::Result<_>>()?;
    out.sort();
    Ok(out)
}

#[test]
fn a_turn_is_restored_and_the_restore_undone() -> Result {
    let mut f = fixture()?;
    turn(&f)?;
    let capture = f.ws.capture(&f.store)?;
    assert_eq!(capture.changes.len(), 4, "{:?}", capture.changes);
    let report = restore(&mut f.ws, &f.store, &targets(&[&capture.changes]), false)?;
    assert!(report.conflicts.is_empty(), "{:?}", report.conflicts);
    assert!(report.found_before.is_empty());
    assert_eq!(names(&f)?, ["c.txt", "d.txt"]);
    assert_eq!(fs::read_to_string(f.root.join("c.txt"))?, "c");
    assert_eq!(fs::read_to_string(f.root.join("d.txt"))?, "d");
    // The restore's own changes undo it.
    assert_eq!(report.undo.changes.len(), 4, "{:?}", report.undo.changes);
    let again = restore(
        &mut f.ws,
        &f.store,
        &targets(&[&report.undo.changes]),
        false,
    )?;
    assert!(again.conflicts.is_empty(), "{:?}", again.conflicts);
    assert_eq!(names(&f)?, ["a.txt", "b.txt", "e.txt"]);
    assert_eq!(fs::read_to_string(f.root.join("b.txt"))?, "x\n");
    assert_eq!(fs::read_to_string(f.root.join("e.txt"))?, "d");
    Ok(())
}

#[test]
fn a_file_changed_after_the_turn_is_a_conflict_and_kept() -> Result {
    let mut f = fixture()?;
    turn(&f)?;
    let capture = f.ws.capture(&f.store)?;
    fs::write(f.root.join("a.txt"), "the person's edit")?;
    let report = restore(&mut f.ws, &f.store, &targets(&[&capture.changes]), false)?;
    assert_eq!(report.conflicts.len(), 1);
    assert_eq!(report.conflicts[0].path, "a.txt");
    assert_eq!(
        fs::read_to_string(f.root.join("a.txt"))?,
        "the person's edit"
    );
    // The edit was seen before the restore and its content kept.
    assert_eq!(report.found_before.changes.len(), 1);
    assert_eq!(names(&f)?, ["a.txt", "c.txt", "d.txt"]);
    Ok(())
}

#[test]
fn a_forced_restore_replaces_a_conflict_and_can_be_undone() -> Result {
    let mut f = fixture()?;
    turn(&f)?;
    let capture = f.ws.capture(&f.store)?;
    fs::write(f.root.join("c.txt"), "recreated by the person")?;
    let report = restore(&mut f.ws, &f.store, &targets(&[&capture.changes]), true)?;
    assert!(report.conflicts.is_empty());
    assert_eq!(fs::read_to_string(f.root.join("c.txt"))?, "c");
    let undo = restore(
        &mut f.ws,
        &f.store,
        &targets(&[&report.undo.changes]),
        false,
    )?;
    assert!(undo.conflicts.is_empty(), "{:?}", undo.conflicts);
    assert_eq!(
        fs::read_to_string(f.root.join("c.txt"))?,
        "recreated by the person"
    );
    Ok(())
}

#[test]
fn a_link_in_place_of_a_file_is_never_followed_or_replaced() -> Result {
    let mut f = fixture()?;
    turn(&f)?;
    let capture = f.ws.capture(&f.store)?;
    let outside = f
        .root
        .parent()
        .map(|p| p.join("outside.txt"))
        .ok_or("no parent")?;
    fs::write(&outside, "outside")?;
    std::os::unix::fs::symlink(&outside, f.root.join("c.txt"))?;
    let report = restore(&mut f.ws, &f.store, &targets(&[&capture.changes]), true)?;
    assert_eq!(report.conflicts.len(), 1, "{:?}", report.conflicts);
    assert_eq!(report.conflicts[0].path, "c.txt");
    assert!(
        fs::symlink_metadata(f.root.join("c.txt"))?
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&outside)?, "outside");
    Ok(())
}

#[test]
fn a_restore_into_a_folder_recreates_it() -> Result {
    let mut f = fixture()?;
    fs::create_dir(f.root.join("sub"))?;
    fs::write(f.root.join("sub/n.txt"), "n")?;
    f.ws.capture(&f.store)?;
    fs::remove_dir_all(f.root.join("sub"))?;
    let capture = f.ws.capture(&f.store)?;
    let report = restore(&mut f.ws, &f.store, &targets(&[&capture.changes]), false)?;
    assert_eq!(report.restored, ["sub/n.txt"]);
    assert_eq!(fs::read_to_string(f.root.join("sub/n.txt"))?, "n");
    Ok(())
}

#[test]
fn a_folder_swapped_for_a_link_is_never_written_through() -> Result {
    let mut f = fixture()?;
    fs::create_dir(f.root.join("sub"))?;
    fs::write(f.root.join("sub/n.txt"), "n")?;
    f.ws.capture(&f.store)?;
    fs::remove_dir_all(f.root.join("sub"))?;
    let capture = f.ws.capture(&f.store)?;
    let outside = f
        .root
        .parent()
        .map(|p| p.join("elsewhere"))
        .ok_or("no parent")?;
    fs::create_dir(&outside)?;
    std::os::unix::fs::symlink(&outside, f.root.join("sub"))?;
    let report = restore(&mut f.ws, &f.store, &targets(&[&capture.changes]), true)?;
    assert_eq!(report.conflicts.len(), 1, "{:?}", report.conflicts);
    assert!(report.restored.is_empty());
    assert!(!outside.join("n.txt").exists());
    Ok(())
}

#[test]
fn a_content_no_longer_kept_is_listed_and_the_rest_restored() -> Result {
    let mut f = fixture()?;
    turn(&f)?;
    let capture = f.ws.capture(&f.store)?;
    // The kept content of c.txt is gone (pruned).
    let gone = capture
        .changes
        .iter()
        .find(|c| c.path == "c.txt")
        .and_then(|c| c.before.clone())
        .ok_or("no c.txt")?;
    let kept = f
        .dir
        .path()
        .join("contents")
        .join(&gone.sha256[..2])
        .join(&gone.sha256);
    fs::remove_file(kept)?;
    let report = restore(&mut f.ws, &f.store, &targets(&[&capture.changes]), false)?;
    assert_eq!(report.conflicts.len(), 1, "{:?}", report.conflicts);
    assert!(
        report.conflicts[0].reason.contains("no longer kept"),
        "{}",
        report.conflicts[0].reason
    );
    assert_eq!(names(&f)?, ["d.txt"]);
    assert_eq!(report.undo.changes.len(), 3, "{:?}", report.undo.changes);
    Ok(())
}
