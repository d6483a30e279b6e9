//! The read-only commands (`conversations list/show/search`, `migrate --status`) on a
//! home and database nobody may write: they work, change nothing, and say why
//! turns are shown as stored; a command that must write says what failed.
//!
//! Permissions do not bind root, so as root the binary runs as `nobody` (through
//! util-linux's `setpriv`); otherwise the files are made read-only with chmod.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use smallebot_core::test_support::RowFixtures;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use smallebot_core::entities::{NewMessage, Role, TurnStatus};
use smallebot_core::repository::{ConversationRepository, TurnRepository};
use smallebot_infrastructure::SqliteStore;

const NOBODY: &str = "65534";

fn is_root() -> bool {
    std::fs::metadata("/proc/self").unwrap().uid() == 0
}

/// A temporary directory `nobody` can reach (under `/tmp` when we are root, whatever
/// `TMPDIR` says), holding a copy of the binary `nobody` may run (the build directory
/// may be private).
fn base_dir() -> tempfile::TempDir {
    let dir = if is_root() {
        tempfile::Builder::new().tempdir_in("/tmp").unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    set_mode(dir.path(), 0o755);
    if is_root() {
        let copy = dir.path().join("smallebot");
        std::fs::copy(env!("CARGO_BIN_EXE_smallebot"), &copy).unwrap();
        set_mode(&copy, 0o755);
    }
    dir
}

/// Runs the binary in `home` (inside a [`base_dir`]), as `nobody` when we are root.
fn smallebot(home: &Path, args: &[&str]) -> Output {
    let mut command = if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid", NOBODY, "--regid", NOBODY, "--clear-groups"]);
        c.arg(home.parent().unwrap().join("smallebot"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_smallebot"))
    };
    command
        .arg("--home")
        .arg(home)
        .args(args)
        .env_remove("SMALLEBOT_HOME")
        .env("HOME", home)
        .output()
        .unwrap()
}

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A home holding one conversation, then made read-only (directory and file).
async fn read_only_home() -> (tempfile::TempDir, PathBuf, String) {
    let dir = base_dir();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let store = SqliteStore::open(&home.join("smallebot.db")).await.unwrap();
    let c = store
        .create_conversation("alice", "Narwhal facts")
        .await
        .unwrap();
    let turn = store.start_turn(c.id, false).await.unwrap();
    for (role, content) in [
        (Role::User, "where do narwhals live"),
        (Role::Assistant, "Narwhals live in the Arctic"),
    ] {
        store
            .append_message(&NewMessage {
                conversation_id: c.id,
                turn_id: turn.id,
                role,
                content: content.into(),
                token_count: 5,
            })
            .await
            .unwrap();
    }
    store
        .finish_turn(turn.id, TurnStatus::Completed, None)
        .await
        .unwrap();
    store.close().await;
    set_mode(&home.join("smallebot.db"), 0o444);
    set_mode(&home, 0o555);
    (dir, home, c.id.to_string())
}

/// Every file of `home` with its bytes.
fn snapshot(home: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(home)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    files.sort();
    files
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[tokio::test]
async fn read_only_commands_work_on_a_read_only_home_and_change_nothing() {
    let (_dir, home, id) = read_only_home().await;
    let before = snapshot(&home);

    let list = smallebot(&home, &["conversations", "list"]);
    assert!(list.status.success(), "{}", text(&list.stderr));
    assert!(
        text(&list.stdout).contains("Narwhal facts"),
        "{}",
        text(&list.stdout)
    );
    assert!(
        text(&list.stderr).contains("cannot be written here"),
        "{}",
        text(&list.stderr)
    );

    let show = smallebot(&home, &["conversations", "show", &id[..8]]);
    assert!(show.status.success(), "{}", text(&show.stderr));
    assert!(text(&show.stdout).contains("Narwhals live in the Arctic"));

    // No search ran before, so the rows are not in the index: found all the same.
    let search = smallebot(&home, &["conversations", "search", "narwhals"]);
    assert!(search.status.success(), "{}", text(&search.stderr));
    let found = text(&search.stdout);
    assert!(
        found.contains("where do narwhals live") && found.contains(&id),
        "{found}"
    );

    let status = smallebot(&home, &["migrate", "--status"]);
    assert!(status.status.success(), "{}", text(&status.stderr));
    assert!(
        text(&status.stdout).contains("up to date"),
        "{}",
        text(&status.stdout)
    );

    // A command that must write fails with what failed, and writes nothing.
    let delete = smallebot(&home, &["conversations", "delete", &id]);
    assert!(!delete.status.success());
    assert!(
        text(&delete.stderr).contains("readonly") || text(&delete.stderr).contains("read-only"),
        "{}",
        text(&delete.stderr)
    );
    assert!(!text(&delete.stderr).contains("panicked"));

    assert_eq!(snapshot(&home), before, "the home is unchanged");
    set_mode(&home, 0o755); // so the temporary directory can be removed
}

#[tokio::test]
async fn an_outdated_read_only_database_says_to_migrate() {
    let dir = base_dir();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    smallebot_infrastructure::migrate_database_to(&home.join("smallebot.db"), 12)
        .await
        .unwrap();
    set_mode(&home.join("smallebot.db"), 0o444);
    set_mode(&home, 0o555);
    let list = smallebot(&home, &["conversations", "list"]);
    assert!(!list.status.success());
    let error = text(&list.stderr);
    // Every migration after the 12th is missing.
    let known = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../migrations"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "sql")
        })
        .count();
    assert!(
        error.contains(&format!("needs {} migration(s)", known - 12))
            && error.contains("smallebot migrate"),
        "{error}"
    );
    let status = smallebot(&home, &["migrate", "--status"]);
    assert!(status.status.success(), "{}", text(&status.stderr));
    assert!(
        text(&status.stdout).contains("pending  0013"),
        "{}",
        text(&status.stdout)
    );
}
