//! `cargo xtask migrate` (the tasks binary behind it) end to end, on real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

use smallebot_infrastructure::{migrate_database_to, migration_status};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask-tasks"))
        .args(args)
        .env_remove("SMALLEBOT_HOME")
        .env_remove("SMALLEBOT_DATABASE_URL")
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn migrate_creates_then_says_up_to_date() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("fresh.db");
    let db_arg = db.to_str().unwrap();
    let first = xtask(&["migrate", "--database", db_arg]);
    assert!(first.status.success(), "{first:?}");
    assert!(
        stdout(&first).contains("applied 0001"),
        "{}",
        stdout(&first)
    );
    assert!(stdout(&first).contains("applied 0002"));
    let again = xtask(&["migrate", "--database", db_arg]);
    assert!(again.status.success());
    assert!(stdout(&again).contains("up to date"), "{}", stdout(&again));
    let status = xtask(&["migrate", "--database", db_arg, "--status"]);
    assert!(
        stdout(&status).contains("applied  0002"),
        "{}",
        stdout(&status)
    );
}

#[test]
fn migrate_defaults_to_the_homes_database() {
    let dir = tempfile::tempdir().unwrap();
    let out = xtask(&["migrate", "--home", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert!(dir.path().join("smallebot.db").exists());
}

#[tokio::test]
async fn migrate_upgrades_an_older_database_and_leaves_a_backup() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.db");
    migrate_database_to(&db, 1).await.unwrap();
    let out = xtask(&["migrate", "--database", db.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert!(stdout(&out).contains("backed up to"), "{}", stdout(&out));
    assert!(dir.path().join("old.db.bak-1").exists());
    assert!(migration_status(&db).await.unwrap().pending.is_empty());
}

#[test]
fn migrate_refuses_a_file_that_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("photo.jpg");
    std::fs::write(&db, [0xFFu8, 0xD8, 0xFF, 0xE0].repeat(64)).unwrap();
    let before = std::fs::read(&db).unwrap();
    let out = xtask(&["migrate", "--database", db.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("photo.jpg") && err.contains("not an SQLite database"),
        "{err}"
    );
    assert_eq!(std::fs::read(&db).unwrap(), before);
}

#[test]
fn a_url_is_never_taken_for_a_path() {
    let dir = tempfile::tempdir().unwrap();
    for (url, expected) in [
        (
            // A PostgreSQL URL is a PostgreSQL database (here: nobody listens).
            "postgres://user:hunter2@127.0.0.1:1/db",
            "cannot connect to PostgreSQL at postgres://user:***@127.0.0.1:1/db",
        ),
        (
            "mysql://h/db",
            "has the scheme 'mysql', which no store serves",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_xtask-tasks"))
            .args(["migrate", "--database", url])
            .current_dir(dir.path())
            .env_remove("SMALLEBOT_HOME")
            .env_remove("SMALLEBOT_DATABASE_URL")
            .output()
            .unwrap();
        assert!(!out.status.success(), "{url}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{url}: {stderr}");
        // Nothing was created where the command ran.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "{url}");
    }
    let sqlite_url = format!("sqlite://{}", dir.path().join("via-url.db").display());
    let out = xtask(&["migrate", "--database", &sqlite_url]);
    assert!(out.status.success(), "{out:?}");
    assert!(dir.path().join("via-url.db").exists());
}

#[test]
fn migrate_lists_applies_and_reports_on_postgres() {
    let Some(cluster) =
        smallebot_testkit::postgres::TestCluster::start("migrate_lists_applies_and_reports")
    else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let text = |out: &std::process::Output| {
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let before = text(&xtask(&["migrate", "--database", &url, "--status"]));
    assert!(before.contains("pending  0001"), "{before}");
    let applied = text(&xtask(&["migrate", "--database", &url]));
    assert!(applied.contains("applied 0001"), "{applied}");
    assert!(applied.contains("migration(s) applied"), "{applied}");
    let again = text(&xtask(&["migrate", "--database", &url]));
    assert!(again.contains("up to date"), "{again}");
    let after = text(&xtask(&["migrate", "--database", &url, "--status"]));
    assert!(after.contains("applied  0001"), "{after}");
    assert!(after.trim_end().ends_with("up to date"), "{after}");
}
