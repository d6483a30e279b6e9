//! Checkpoint retention through the real binary on SQLite: `checkpoints prune`
//! removes contents last needed longer ago than `maxAgeDays`, keeps young ones and a
//! content a young turn still names, and the old turn says so — `conversations show`
//! marks the change, and a rewind names the path it cannot restore.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod checkpoints_support;
mod cli;

use std::path::Path;
use std::time::{Duration, SystemTime};

use checkpoints_support::smallebot;
use cli::answer_titles;
use serde_json::json;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use sqlx::Connection as _;

/// Scripts one turn that runs `command`.
fn command_turn(model: &TestModel, id: &str, command: &str) {
    model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            id,
            "ExecuteCommand",
            json!({ "command": command }).to_string(),
        )]),
        ScriptedResponse::text("Done."),
    ]);
}

/// Every kept content file beside the database.
fn content_files(home: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for shard in std::fs::read_dir(home.join("checkpoints")).unwrap() {
        for file in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            found.push(file.unwrap().path());
        }
    }
    found.sort();
    found
}

/// The content file of `text`'s SHA-256.
fn content_of(home: &Path, text: &str) -> std::path::PathBuf {
    use sha2::Digest as _;
    let digest = format!("{:x}", sha2::Sha256::digest(text.as_bytes()));
    home.join("checkpoints").join(&digest[..2]).join(digest)
}

#[tokio::test]
async fn prune_removes_old_contents_keeps_young_and_shared_and_marks_the_old_turn() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let ws = home.join("workspace");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("a.txt"), "A0\n").unwrap();
    std::fs::write(ws.join("b.txt"), "SHARED\n").unwrap();
    std::fs::write(
        home.join("agent.json"),
        json!({"checkpoints": {"maxAgeDays": 365}}).to_string(),
    )
    .unwrap();
    let model = TestModel::start().await.unwrap();
    answer_titles(&model);
    let url = model.base_url();

    // The old turn: a.txt A0 -> A1, b.txt SHARED -> B1.
    command_turn(&model, "x1", "echo A1 > a.txt; echo B1 > b.txt");
    smallebot(home, &url, &["run", "old turn"]).await;
    let listed = smallebot(home, &url, &["conversations", "list"]).await;
    let old = listed.split_whitespace().next().unwrap().to_owned();

    // Everything so far is 60 days old: the old turn's changes and every content file.
    let sixty_days_ago = chrono::Utc::now() - chrono::TimeDelta::days(60);
    let url_db = format!("sqlite://{}", home.join("smallebot.db").display());
    let mut db = sqlx::SqliteConnection::connect(&url_db).await.unwrap();
    let aged = sqlx::query("UPDATE turn_file_changes SET created_at = ?1")
        .bind(smallebot_core::time::format_timestamp(&sixty_days_ago))
        .execute(&mut db)
        .await
        .unwrap();
    assert_eq!(aged.rows_affected(), 2);
    db.close().await.unwrap();
    let then = SystemTime::now() - Duration::from_secs(60 * 24 * 3600);
    for file in content_files(home) {
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(then)
            .unwrap();
    }

    // The young turn (another conversation) names SHARED again and adds YOUNG. While
    // turns run the home keeps a year, so the prune each start does removes nothing.
    command_turn(&model, "x2", "echo SHARED > c.txt; echo YOUNG > d.txt");
    smallebot(home, &url, &["run", "young turn"]).await;
    assert_eq!(content_files(home).len(), 5, "pruned at start");

    // With the 30 days of the default: the dry run says, the prune removes A0, A1, B1
    // (3 bytes each) and keeps SHARED (named by the young turn) and YOUNG.
    std::fs::write(home.join("agent.json"), "{}").unwrap();
    let dry = smallebot(home, &url, &["checkpoints", "prune", "--dry-run"]).await;
    assert_eq!(
        dry.trim(),
        "would remove 3 checkpoint content(s), 9 bytes; 2 content(s), 13 bytes kept"
    );
    assert_eq!(content_files(home).len(), 5, "a dry run removed contents");
    let pruned = smallebot(home, &url, &["checkpoints", "prune"]).await;
    assert_eq!(
        pruned.trim(),
        "removed 3 checkpoint content(s), 9 bytes; 2 content(s), 13 bytes kept"
    );
    for gone in ["A0\n", "A1\n", "B1\n"] {
        assert!(!content_of(home, gone).exists(), "{gone:?} kept");
    }
    for kept in ["SHARED\n", "YOUNG\n"] {
        assert!(content_of(home, kept).exists(), "{kept:?} pruned");
    }
    let again = smallebot(home, &url, &["checkpoints", "prune"]).await;
    assert!(
        again.starts_with("removed 0 checkpoint content(s), 0 bytes"),
        "{again}"
    );

    // The old turn marks a.txt (its content before is gone), not b.txt (SHARED kept).
    let shown = smallebot(home, &url, &["conversations", "show", &old]).await;
    let change = |path: &str| {
        let line = format!("modified {path}  (");
        shown
            .lines()
            .find(|l| l.trim().starts_with(&line))
            .unwrap()
            .to_owned()
    };
    let a_line = change("a.txt");
    assert!(
        a_line.contains("not captured: its content was pruned on"),
        "{shown}"
    );
    assert_eq!(
        change("b.txt").trim(),
        "modified b.txt  (7 B -> 3 B)",
        "{shown}"
    );

    // A rewind of the old turn restores b.txt and names a.txt, which it cannot.
    let rewound = smallebot(home, &url, &["rewind", &old, "--files"]).await;
    assert!(rewound.contains("restored  b.txt"), "{rewound}");
    let a_named = rewound
        .lines()
        .find(|l| l.starts_with("not restorable") && l.contains("a.txt"));
    assert!(a_named.is_some(), "{rewound}");
    assert_eq!(
        std::fs::read_to_string(ws.join("b.txt")).unwrap(),
        "SHARED\n"
    );
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "A1\n");
}
