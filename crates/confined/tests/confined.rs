//! The confined root on a real file system, with both resolvers (the kernel's
//! `openat2` where this kernel has it, and the name-by-name walk every system gets):
//! no way out, no link followed where links are refused, only regular files read and
//! never more than asked, folders made one at a time beneath the root.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use smallebot_confined::{Access, ConfinedError, FileKind, Links, Resolver, Root};

/// A home with `ws/` (the root) beside `secret` and `outside/`.
struct Tree {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().to_path_buf();
        std::fs::create_dir(base.join("ws")).unwrap();
        std::fs::create_dir(base.join("outside")).unwrap();
        std::fs::write(base.join("secret"), "outside").unwrap();
        std::fs::write(base.join("ws/inside.txt"), "inside").unwrap();
        Self { _dir: dir, base }
    }

    fn ws(&self) -> PathBuf {
        self.base.join("ws")
    }

    fn link(&self, target: impl AsRef<Path>, at: &str) {
        symlink(target, self.ws().join(at)).unwrap();
    }

    /// The root under each resolver this system has.
    fn roots(&self, links: Links) -> Vec<Root> {
        let mut roots = vec![
            Root::open(self.ws(), links)
                .unwrap()
                .with_resolver(Resolver::Walk),
        ];
        let kernel = Root::open(self.ws(), links).unwrap();
        if kernel.resolver() == Resolver::Kernel {
            roots.push(kernel);
        } else {
            eprintln!("NOTE: no openat2 here; only the walk is tested");
        }
        roots
    }
}

fn link_at(error: &ConfinedError) -> Option<(&str, bool)> {
    match error {
        ConfinedError::Link { path, dir } => Some((path.as_str(), *dir)),
        _ => None,
    }
}

#[test]
fn no_path_leads_out_of_the_root() {
    let tree = Tree::new();
    tree.link(&tree.base, "up");
    tree.link("../secret", "relative_up");
    for links in [Links::Refuse, Links::Beneath] {
        for root in tree.roots(links) {
            let who = format!("{links:?} {:?}", root.resolver());
            for path in ["up/secret", "relative_up"] {
                let error = root.read(path, 100).unwrap_err();
                assert!(
                    matches!(
                        error,
                        ConfinedError::Escape { .. } | ConfinedError::Link { .. }
                    ),
                    "{who} {path}: {error}"
                );
            }
            for path in ["../secret", "/etc/passwd", "a/../../secret"] {
                let error = root.read(path, 100).unwrap_err();
                assert!(
                    matches!(error, ConfinedError::NotRelative { .. }),
                    "{who} {path}: {error}"
                );
            }
            assert!(root.create_dirs("up/made").is_err(), "{who}");
            assert!(root.create_new("up/new.txt").is_err(), "{who}");
            assert!(
                root.open_file("up/secret", Access::Replace).is_err(),
                "{who}"
            );
            assert!(root.rename("inside.txt", "up/moved.txt").is_err(), "{who}");
            assert!(root.remove_file("up/secret").is_err(), "{who}");
            assert!(root.read_dir("up").is_err(), "{who}");
            assert!(!tree.base.join("made").exists() && !tree.base.join("new.txt").exists());
            assert!(!tree.base.join("moved.txt").exists() && tree.base.join("secret").exists());
        }
    }
}

#[test]
fn refusing_links_refuses_every_link_and_names_it() {
    let tree = Tree::new();
    std::fs::create_dir(tree.ws().join("real")).unwrap();
    std::fs::write(tree.ws().join("real/file"), "x").unwrap();
    tree.link("real", "alias");
    tree.link("inside.txt", "file_alias");
    for root in tree.roots(Links::Refuse) {
        let who = format!("{:?}", root.resolver());
        assert_eq!(root.read("real/file", 10).unwrap(), b"x", "{who}");
        let error = root.read("alias/file", 10).unwrap_err();
        assert_eq!(link_at(&error), Some(("alias", true)), "{who}: {error}");
        assert!(
            error.to_string().starts_with("alias/ is a symbolic link"),
            "{error}"
        );
        let error = root.read("file_alias", 10).unwrap_err();
        assert_eq!(
            link_at(&error),
            Some(("file_alias", false)),
            "{who}: {error}"
        );
        let error = root.create_dirs("alias").unwrap_err();
        assert_eq!(link_at(&error), Some(("alias", true)), "{who}: {error}");
        let error = root.open_dir("alias").unwrap_err();
        assert_eq!(link_at(&error), Some(("alias", true)), "{who}: {error}");
        let error = root.metadata("file_alias").unwrap_err();
        assert_eq!(
            link_at(&error),
            Some(("file_alias", false)),
            "{who}: {error}"
        );
        assert_eq!(
            root.symlink_metadata("file_alias").unwrap().kind,
            FileKind::Link
        );
        assert!(error.is_refusal());
    }
}

#[test]
fn following_beneath_keeps_links_inside_with_the_kernel() {
    let tree = Tree::new();
    std::fs::create_dir(tree.ws().join("real")).unwrap();
    std::fs::write(tree.ws().join("real/file"), "x").unwrap();
    tree.link("real", "alias");
    tree.link("loop", "loop");
    let root = Root::open(tree.ws(), Links::Beneath).unwrap();
    if root.resolver() != Resolver::Kernel {
        eprintln!("NOTE: no openat2 here; links are refused instead (tested elsewhere)");
        return;
    }
    assert_eq!(root.read("alias/file", 10).unwrap(), b"x");
    assert_eq!(root.metadata("alias").unwrap().kind, FileKind::Dir);
    let error = root.read("loop", 10).unwrap_err();
    assert!(matches!(error, ConfinedError::Loop { .. }), "{error}");
    let walk = root.with_resolver(Resolver::Walk);
    let error = walk.read("alias/file", 10).unwrap_err();
    assert_eq!(link_at(&error), Some(("alias", true)), "{error}");
}

#[test]
fn a_new_file_never_replaces_anything_not_even_a_dangling_link() {
    let tree = Tree::new();
    let target = tree.base.join("outside/made-through-link");
    tree.link(&target, "dangling");
    tree.link("outside-dir-not-there", "dangling_rel");
    for links in [Links::Refuse, Links::Beneath] {
        for root in tree.roots(links) {
            let who = format!("{links:?} {:?}", root.resolver());
            for path in ["dangling", "dangling_rel", "inside.txt"] {
                let error = root.create_new(path).unwrap_err();
                assert!(
                    matches!(error, ConfinedError::Exists { .. }),
                    "{who} {path}: {error}"
                );
            }
            assert!(!target.exists(), "{who}");
        }
    }
    let root = Root::open(tree.ws(), Links::Refuse).unwrap();
    let mut file = root.create_new("fresh.bin").unwrap();
    file.write_all(b"new").unwrap();
    assert_eq!(std::fs::read(tree.ws().join("fresh.bin")).unwrap(), b"new");
}

#[test]
fn only_regular_files_are_read_and_a_pipe_never_blocks() {
    let tree = Tree::new();
    let fifo = tree.ws().join("pipe");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::fs::create_dir(tree.ws().join("folder")).unwrap();
    for links in [Links::Refuse, Links::Beneath] {
        for root in tree.roots(links) {
            let started = Instant::now();
            for (path, kind) in [
                ("pipe", FileKind::Fifo),
                ("folder", FileKind::Dir),
                (".", FileKind::Dir),
            ] {
                for access in [Access::Read, Access::Replace, Access::Append] {
                    let error = root.open_file(path, access).unwrap_err();
                    assert!(
                        matches!(&error, ConfinedError::NotRegular { kind: k, .. } if *k == kind),
                        "{path} {access:?}: {error}"
                    );
                }
                assert!(root.read(path, 10).is_err());
            }
            assert!(started.elapsed() < Duration::from_secs(5));
            let message = root.read("pipe", 10).unwrap_err().to_string();
            assert!(message.contains("named pipe"), "{message}");
        }
    }
}

#[test]
fn reading_checks_the_size_first_and_never_reads_past_the_limit() {
    let tree = Tree::new();
    let big = std::fs::File::create(tree.ws().join("sparse")).unwrap();
    big.set_len(4 << 30).unwrap();
    std::fs::write(tree.ws().join("ten"), "0123456789").unwrap();
    for root in tree.roots(Links::Refuse) {
        let started = Instant::now();
        let error = root.read("sparse", 1 << 20).unwrap_err();
        assert!(
            matches!(error, ConfinedError::TooLarge { size, limit, .. } if size == 4 << 30 && limit == 1 << 20),
            "{error}"
        );
        assert!(started.elapsed() < Duration::from_secs(2));
        assert_eq!(root.read("ten", 10).unwrap(), b"0123456789");
        assert!(matches!(
            root.read("ten", 9).unwrap_err(),
            ConfinedError::TooLarge { .. }
        ));
        let mut opened = root.open_file("ten", Access::Read).unwrap();
        let mut text = String::new();
        opened.read_to_string(&mut text).unwrap();
        assert_eq!(text, "0123456789");
    }
}

#[test]
fn folders_are_made_one_at_a_time_and_stop_at_a_file_or_link() {
    let tree = Tree::new();
    tree.link(tree.base.join("outside"), "out");
    for root in tree.roots(Links::Refuse) {
        root.create_dirs("a/b/c").unwrap();
        root.create_dirs("a/b/c").unwrap();
        assert!(tree.ws().join("a/b/c").is_dir());
        let error = root.create_dirs("inside.txt/sub").unwrap_err();
        assert!(
            matches!(error, ConfinedError::NotDirectory { ref path } if path == "inside.txt"),
            "{error}"
        );
        let error = root.create_dirs("out/sub").unwrap_err();
        assert_eq!(link_at(&error), Some(("out", true)), "{error}");
        assert!(
            std::fs::read_dir(tree.base.join("outside"))
                .unwrap()
                .next()
                .is_none()
        );
        let sub = root.open_dir("a/b").unwrap();
        sub.create_new("c/in-sub.txt").unwrap();
        assert!(tree.ws().join("a/b/c/in-sub.txt").is_file());
        std::fs::remove_dir_all(tree.ws().join("a")).unwrap();
    }
}

#[test]
fn listing_renaming_and_removing_stay_beneath_and_never_follow() {
    let tree = Tree::new();
    std::fs::write(tree.base.join("outside/keep"), "keep").unwrap();
    for root in tree.roots(Links::Refuse) {
        root.create_dirs("tree/deep").unwrap();
        root.create_new("tree/deep/file").unwrap();
        symlink(tree.base.join("outside"), tree.ws().join("tree/out")).unwrap();
        let listed = root.read_dir("tree").unwrap();
        let names: Vec<(&str, FileKind)> =
            listed.iter().map(|e| (e.name.as_str(), e.kind)).collect();
        assert_eq!(names, [("deep", FileKind::Dir), ("out", FileKind::Link)]);
        assert_eq!(
            listed[1].target.as_deref(),
            Some(tree.base.join("outside").to_str().unwrap())
        );
        root.rename("tree", "moved").unwrap();
        assert!(tree.ws().join("moved/deep/file").is_file());
        root.remove_file("moved/out").unwrap();
        symlink(tree.base.join("outside"), tree.ws().join("moved/deep/out")).unwrap();
        root.remove_dir_all("moved").unwrap();
        assert!(!tree.ws().join("moved").exists());
        assert_eq!(
            std::fs::read(tree.base.join("outside/keep")).unwrap(),
            b"keep"
        );
        assert!(matches!(
            root.remove_file("nothing").unwrap_err(),
            ConfinedError::NotFound { .. }
        ));
    }
}

/// A folder swapped for a link to outside, again and again, while files are created
/// in it: none lands outside, whatever the timing.
#[test]
fn a_folder_swapped_for_a_link_never_leads_a_write_out() {
    let tree = Tree::new();
    std::fs::create_dir(tree.ws().join("drop")).unwrap();
    let ws = tree.ws();
    let outside = tree.base.join("outside");
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (ws, outside, stop) = (ws.clone(), outside.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::rename(ws.join("drop"), ws.join("held"));
                let _ = symlink(&outside, ws.join("drop"));
                let _ = std::fs::remove_file(ws.join("drop"));
                let _ = std::fs::rename(ws.join("held"), ws.join("drop"));
            }
        })
    };
    for root in tree.roots(Links::Refuse) {
        for n in 0..5000 {
            let _ = root.create_dirs("drop");
            let _ = root.create_new(format!("drop/f{n}-{:?}", root.resolver()));
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    let escaped: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
    assert!(escaped.is_empty(), "{escaped:?}");
}

#[test]
fn a_new_folder_is_made_once_and_a_hard_link_shows_in_its_count() {
    let tree = Tree::new();
    std::fs::hard_link(tree.ws().join("inside.txt"), tree.ws().join("second-name")).unwrap();
    tree.link("inside.txt", "alias");
    for root in tree.roots(Links::Refuse) {
        root.create_dir("made").unwrap();
        assert!(matches!(
            root.create_dir("made").unwrap_err(),
            ConfinedError::Exists { .. }
        ));
        assert!(matches!(
            root.create_dir("alias").unwrap_err(),
            ConfinedError::Exists { .. }
        ));
        assert!(matches!(
            root.create_dir("none/made").unwrap_err(),
            ConfinedError::NotFound { .. }
        ));
        std::fs::remove_dir(tree.ws().join("made")).unwrap();
        let (mut file, meta) = root.open_read("second-name").unwrap();
        assert_eq!((meta.kind, meta.len, meta.links), (FileKind::File, 6, 2));
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        assert_eq!(text, "inside");
    }
}
