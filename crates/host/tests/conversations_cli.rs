//! `smallebot migrate` and `smallebot conversations …` against real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use smallebot_core::test_support::RowFixtures;
use std::path::Path;
use std::process::{Command, Output};

use chrono::Utc;
use smallebot_core::entities::{
    CompressionUpdate, Conversation, HistoryRow, NewMessage, NewThinkBlock, NewToolCall, Role,
    ToolCallCompletion, ToolCallStatus, TurnStatus,
};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};
use smallebot_infrastructure::SqliteStore;

fn smallebot(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_smallebot"))
        .arg("--home")
        .arg(home)
        .args(args)
        .env_remove("SMALLEBOT_HOME")
        .output()
        .unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

async fn seeded(home: &Path) -> Conversation {
    let store = SqliteStore::open(&home.join("smallebot.db")).await.unwrap();
    let c = store
        .create_conversation("alice", "Disk check")
        .await
        .unwrap();
    let t1 = store.start_turn(c.id, false).await.unwrap();
    let msg = |turn, role, content: &str| NewMessage {
        conversation_id: c.id,
        turn_id: turn,
        role,
        content: content.into(),
        token_count: 1,
    };
    store
        .append_message(&msg(t1.id, Role::User, "how full is the disk?"))
        .await
        .unwrap();
    store
        .append_think_block(&NewThinkBlock {
            conversation_id: c.id,
            turn_id: t1.id,
            content: "run df".into(),
        })
        .await
        .unwrap();
    store
        .append_tool_call(&NewToolCall {
            conversation_id: c.id,
            turn_id: t1.id,
            call_id: "call_1".into(),
            tool_name: "ExecuteCommand".into(),
            arguments: r#"{"command":"df -h"}"#.into(),
            token_count: 1,
        })
        .await
        .unwrap();
    store
        .complete_tool_call(
            t1.id,
            "call_1",
            &ToolCallCompletion {
                result: format!("/dev/sda1 42% {}", "x".repeat(1000)),
                status: ToolCallStatus::Ok,
                token_count: 1,
            },
        )
        .await
        .unwrap();
    store
        .append_message(&msg(t1.id, Role::Assistant, "The disk is 42% full."))
        .await
        .unwrap();
    store
        .finish_turn(t1.id, TurnStatus::Completed, None)
        .await
        .unwrap();
    let t2 = store.start_turn(c.id, false).await.unwrap();
    store
        .append_message(&msg(t2.id, Role::User, "and now?"))
        .await
        .unwrap();
    store
        .finish_turn(t2.id, TurnStatus::Failed, Some("provider returned 500"))
        .await
        .unwrap();
    let rows = store.rows_after(c.id, 0).await.unwrap();
    let last_of_turn1 = rows
        .iter()
        .filter(|r| r.turn_id() == t1.id)
        .map(HistoryRow::seq)
        .max()
        .unwrap();
    store
        .set_compression(
            c.id,
            &CompressionUpdate {
                compressed_context: "The person asked about disk usage; it was 42%.".into(),
                compressed_at: Utc::now(),
                compressed_through_seq: last_of_turn1,
                expected_previous_seq: None,
            },
        )
        .await
        .unwrap();
    store.close().await;
    c
}

#[tokio::test]
async fn show_renders_the_timeline_and_marks_summarized_rows() {
    let home = tempfile::tempdir().unwrap();
    let c = seeded(home.path()).await;
    let shown = smallebot(home.path(), &["conversations", "show", &c.id.to_string()]);
    assert!(shown.status.success(), "{shown:?}");
    let text = out(&shown);
    for expected in [
        "Disk check",
        "Summary of rows",
        "The person asked about disk usage",
        "[summarized] USER: how full is the disk?",
        "[summarized] REASONING: run df",
        "[summarized] TOOL ExecuteCommand({\"command\":\"df -h\"}) [ok] → /dev/sda1 42%",
        "[summarized] ASSISTANT: The disk is 42% full.",
        "turn 2 · failed",
        "provider returned 500",
        "  USER: and now?",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(
        !text.contains(&"x".repeat(400)),
        "tool results are shortened"
    );
    assert!(!text.contains("[summarized] USER: and now?"));
}

#[tokio::test]
async fn export_writes_markdown_or_json_to_standard_output_or_a_file() {
    let home = tempfile::tempdir().unwrap();
    let c = seeded(home.path()).await;
    let id = c.id.to_string();
    let export = |args: &[&str]| {
        let mut all = vec!["conversations", "export"];
        all.extend_from_slice(args);
        smallebot(home.path(), &all)
    };

    let md = export(&[&id[..8]]);
    assert!(md.status.success(), "{md:?}");
    let text = out(&md);
    assert!(text.starts_with("# Disk check\n"), "{text}");
    for expected in [
        "## Summary of earlier turns\n\nThe person asked about disk usage; it was 42%.\n",
        "## You\n\nhow full is the disk?\n\n### Tool: ExecuteCommand (ok)\n\n```json\n{\"command\":\"df -h\"}\n```",
        "## Assistant\n\nThe disk is 42% full.\n",
        "## You\n\nand now?\n\n> **Failed:** provider returned 500\n",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(!text.contains("run df"), "reasoning is left out: {text}");

    let file = home.path().join("out.json");
    let json = export(&[&id, "--format", "json", "--output", file.to_str().unwrap()]);
    assert!(json.status.success(), "{json:?}");
    assert!(json.stdout.is_empty());
    let body: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(body["conversation"]["id"], id.as_str());
    assert_eq!(body["conversation"]["title"], "Disk check");
    let statuses: Vec<_> = body["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["completed", "failed"]);
    assert_eq!(body["turns"][1]["error"], "provider returned 500");
    let kinds: Vec<_> = body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["message", "think_block", "tool_call", "message", "message"]
    );

    assert_eq!(export(&["0000"]).status.code(), Some(1));
    assert!(!export(&[&id, "--format", "pdf"]).status.success());
}

#[tokio::test]
async fn list_filters_by_user_and_delete_removes() {
    let home = tempfile::tempdir().unwrap();
    let c = seeded(home.path()).await;
    let listed = out(&smallebot(home.path(), &["conversations", "list"]));
    assert!(
        listed.contains(&c.id.to_string()) && listed.contains("Disk check"),
        "{listed}"
    );
    let bob = out(&smallebot(
        home.path(),
        &["conversations", "list", "--user", "bob"],
    ));
    assert!(!bob.contains(&c.id.to_string()), "{bob}");

    let deleted = smallebot(home.path(), &["conversations", "delete", &c.id.to_string()]);
    assert!(deleted.status.success());
    let again = smallebot(home.path(), &["conversations", "delete", &c.id.to_string()]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("not found"));
    let listed = out(&smallebot(home.path(), &["conversations", "list"]));
    assert!(!listed.contains(&c.id.to_string()));
}

#[test]
fn migrate_and_bad_database_exit_codes() {
    let home = tempfile::tempdir().unwrap();
    let first = smallebot(home.path(), &["migrate"]);
    assert!(first.status.success());
    assert!(out(&first).contains("applied 0001"));
    assert!(out(&smallebot(home.path(), &["migrate"])).contains("up to date"));
    assert!(out(&smallebot(home.path(), &["migrate", "--status"])).contains("applied  0001"));

    let bad = tempfile::tempdir().unwrap();
    std::fs::write(
        bad.path().join("smallebot.db"),
        "definitely not sqlite, just some text here",
    )
    .unwrap();
    let before = std::fs::read(bad.path().join("smallebot.db")).unwrap();
    let o = smallebot(bad.path(), &["conversations", "list"]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("smallebot.db is not an SQLite database"),
        "{stderr}"
    );
    // The hint names options that exist.
    assert!(
        stderr.contains("--home DIR or SMALLEBOT_HOME") && !stderr.contains("--database"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(bad.path().join("smallebot.db")).unwrap(),
        before
    );

    let invalid = smallebot(home.path(), &["conversations", "show", "xyz"]);
    assert!(!invalid.status.success());
    assert!(
        String::from_utf8_lossy(&invalid.stderr)
            .contains("no conversation has an id starting with 'xyz'")
    );
}

#[test]
fn without_home_a_local_agents_directory_is_used_else_the_users_own() {
    let user_home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let list = |dir: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_smallebot"))
            .args(["conversations", "list"])
            .current_dir(dir)
            .env("HOME", user_home.path())
            .env_remove("SMALLEBOT_HOME")
            .output()
            .unwrap()
    };
    // No ./.agents here: the per-user home, not a new ./.agents.
    let out = list(work.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(user_home.path().join(".smallebot/smallebot.db").exists());
    assert!(!work.path().join(".agents").exists());
    // A project's own ./.agents is used when present.
    std::fs::create_dir(work.path().join(".agents")).unwrap();
    let out = list(work.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(work.path().join(".agents/smallebot.db").exists());
}
