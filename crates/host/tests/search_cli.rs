//! `smallebot conversations search` against a real database.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use smallebot_core::test_support::RowFixtures;
use std::path::Path;
use std::process::{Command, Output};

use smallebot_core::entities::{
    Conversation, HistoryRow, NewMessage, NewToolCall, Role, ToolCallCompletion, ToolCallStatus,
};
use smallebot_core::ids::TurnId;
use smallebot_core::repository::{ConversationRepository, HistoryRepository};
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
    assert!(o.status.success(), "{o:?}");
    String::from_utf8_lossy(&o.stdout).into_owned()
}

async fn message(store: &SqliteStore, c: &Conversation, turn: TurnId, role: Role, text: &str) {
    store
        .append_message(&NewMessage {
            conversation_id: c.id,
            turn_id: turn,
            role,
            content: text.into(),
            token_count: 1,
        })
        .await
        .unwrap();
}

/// Seeds alice's "Disk check" and bob's "Bob disk"; returns the header time of each
/// stored row by its text (and each conversation's id by `id:<title>`).
async fn seeded(home: &Path) -> impl Fn(&str) -> String {
    let store = SqliteStore::open(&home.join("smallebot.db")).await.unwrap();
    let alice = store
        .create_conversation("alice", "Disk check")
        .await
        .unwrap();
    let t = store.start_turn(alice.id, false).await.unwrap();
    message(&store, &alice, t.id, Role::User, "how full is the disk?").await;
    // The empty assistant row that opens a tool step: never shown as a neighbour.
    message(&store, &alice, t.id, Role::Assistant, "").await;
    store
        .append_tool_call(&NewToolCall {
            conversation_id: alice.id,
            turn_id: t.id,
            call_id: "call_1".into(),
            tool_name: "ExecuteCommand".into(),
            arguments: r#"{"command":"df -h"}"#.into(),
            token_count: 1,
        })
        .await
        .unwrap();
    store
        .complete_tool_call(
            t.id,
            "call_1",
            &ToolCallCompletion {
                result: "/dev/sda1 42% used".into(),
                status: ToolCallStatus::Ok,
                token_count: 1,
            },
        )
        .await
        .unwrap();
    message(
        &store,
        &alice,
        t.id,
        Role::Assistant,
        "The disk is 42% full.",
    )
    .await;
    let bob = store.create_conversation("bob", "Bob disk").await.unwrap();
    let bt = store.start_turn(bob.id, false).await.unwrap();
    message(&store, &bob, bt.id, Role::User, "bob disk secrets").await;
    let mut times = vec![
        ("id:Disk check".to_owned(), alice.id.to_string()),
        ("id:Bob disk".to_owned(), bob.id.to_string()),
    ];
    for c in [alice.id, bob.id] {
        for row in store.rows_after(c, 0).await.unwrap() {
            if let HistoryRow::Message(m) = row {
                times.push((m.content, m.created_at.format("%Y-%m-%d %H:%M").to_string()));
            }
        }
    }
    store.close().await;
    move |text: &str| {
        times
            .iter()
            .find(|(t, _)| t == text)
            .map(|(_, at)| at.clone())
            .unwrap()
    }
}

#[tokio::test]
async fn search_prints_matches_in_context_newest_first() {
    let home = tempfile::tempdir().unwrap();
    let at = seeded(home.path()).await;

    let all = out(&smallebot(
        home.path(),
        &["conversations", "search", "disk"],
    ));
    let expected = format!(
        "## Match 1 — Bob disk | {} | conversation {bob}\n\
         → USER: bob disk secrets\n\
         \n\
         ## Match 2 — Disk check | {} | conversation {alice}\n\
         TOOL RESULT: /dev/sda1 42% used\n\
         → ASSISTANT: The disk is 42% full.\n\
         \n\
         ## Match 3 — Disk check | {} | conversation {alice}\n\
         → USER: how full is the disk?\n\
         TOOL CALL: ExecuteCommand({{\"command\":\"df -h\"}})\n",
        at("bob disk secrets"),
        at("The disk is 42% full."),
        at("how full is the disk?"),
        bob = at("id:Bob disk"),
        alice = at("id:Disk check"),
    );
    assert_eq!(all, expected);

    let alice = out(&smallebot(
        home.path(),
        &["conversations", "search", "disk", "--user", "alice"],
    ));
    assert_eq!(alice.matches("## Match").count(), 2, "{alice}");
    assert!(!alice.contains("bob"), "{alice}");

    let limited = out(&smallebot(
        home.path(),
        &["conversations", "search", "42%", "--limit", "1"],
    ));
    assert_eq!(limited.matches("## Match").count(), 1, "{limited}");
    assert!(limited.contains("→ ASSISTANT: The disk is 42% full."));

    let words = out(&smallebot(
        home.path(),
        &["conversations", "search", "how", "full", "--days", "1"],
    ));
    assert!(words.contains("→ USER: how full is the disk?"), "{words}");

    let none = out(&smallebot(
        home.path(),
        &["conversations", "search", "zebra"],
    ));
    assert_eq!(none, "No matches found for 'zebra'.\n");

    let bad = smallebot(
        home.path(),
        &["conversations", "search", "disk", "--days", "0"],
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("days must be between 1 and"));
}
