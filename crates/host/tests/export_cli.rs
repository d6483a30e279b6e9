//! `smallebot conversations export ID --format md|json [--output FILE]`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use smallebot_core::entities::{Conversation, NewMessage, Role, TurnStatus};
use smallebot_core::repository::{ConversationRepository, TurnRepository};
use smallebot_core::test_support::RowFixtures;
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

async fn seeded(home: &Path) -> Conversation {
    let store = SqliteStore::open(&home.join("smallebot.db")).await.unwrap();
    let c = store
        .create_conversation("alice", "Disk check")
        .await
        .unwrap();
    for (question, answer, status, error) in [
        (
            "how full is the disk?",
            Some("It is **42%** full.\n\n| disk | used |\n| --- | --- |\n| sda1 | 42% |"),
            TurnStatus::Completed,
            None,
        ),
        (
            "and now?",
            None,
            TurnStatus::Failed,
            Some("provider returned 500"),
        ),
    ] {
        let turn = store.start_turn(c.id, false).await.unwrap();
        let mut messages = vec![(Role::User, question)];
        messages.extend(answer.map(|a| (Role::Assistant, a)));
        for (role, content) in messages {
            store
                .append_message(&NewMessage {
                    conversation_id: c.id,
                    turn_id: turn.id,
                    role,
                    content: content.into(),
                    token_count: 1,
                })
                .await
                .unwrap();
        }
        store.finish_turn(turn.id, status, error).await.unwrap();
    }
    store.close().await;
    c
}

#[tokio::test]
async fn a_conversation_is_exported_as_markdown_or_json() {
    let home = tempfile::tempdir().unwrap();
    let c = seeded(home.path()).await;
    let id = c.id.to_string();

    let md = smallebot(home.path(), &["conversations", "export", &id[..8]]);
    assert!(
        md.status.success(),
        "{}",
        String::from_utf8_lossy(&md.stderr)
    );
    let text = String::from_utf8(md.stdout).unwrap();
    assert!(text.starts_with("# Disk check\n"), "{text}");
    assert!(
        text.contains("## You\n\nhow full is the disk?\n\n## Assistant\n\nIt is **42%** full.\n\n| disk | used |"),
        "the model's Markdown as is: {text}"
    );
    assert!(
        text.contains("## You\n\nand now?\n\n> **Failed:** provider returned 500\n"),
        "{text}"
    );

    let file = home.path().join("out.json");
    let json = smallebot(
        home.path(),
        &[
            "conversations",
            "export",
            &id,
            "--format",
            "json",
            "--output",
        ],
    );
    assert!(!json.status.success(), "--output needs a file");
    let json = smallebot(
        home.path(),
        &[
            "conversations",
            "export",
            &id,
            "--format",
            "json",
            "--output",
            file.to_str().unwrap(),
        ],
    );
    assert!(
        json.status.success(),
        "{}",
        String::from_utf8_lossy(&json.stderr)
    );
    assert!(json.stdout.is_empty());
    let body: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
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
    let rows = body["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["kind"], "message");
    assert_eq!(rows[0]["content"], "how full is the disk?");

    let unknown = smallebot(
        home.path(),
        &["conversations", "export", "0000", "--format", "json"],
    );
    assert_eq!(unknown.status.code(), Some(1));
    let bad = smallebot(
        home.path(),
        &["conversations", "export", &id, "--format", "pdf"],
    );
    assert!(!bad.status.success());
}
