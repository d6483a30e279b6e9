//! `ReadConversationData` over a real SQLite store.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod history_support;

use history_support::*;
use serde_json::{Value, json};
use smallebot_core::entities::{HistoryRow, Role};
use smallebot_core::repository::{HistoryRepository, TurnRepository};
use smallebot_core::rules::truncation::truncate_tool_result;

#[tokio::test]
async fn read_conversation_data_returns_the_timeline_with_counts() {
    let f = fixture().await;
    let c = f.conversation("alice", "Timeline").await;
    let first = f.store.start_turn(c.id, false).await.unwrap();
    f.message(&c, &first, Role::User, "first draft").await;
    f.store
        .finish_turn(
            first.id,
            smallebot_core::entities::TurnStatus::Completed,
            None,
        )
        .await
        .unwrap();
    let old = f.store.rows_after(c.id, 0).await.unwrap();
    let old_id = match &old[0] {
        HistoryRow::Message(m) => m.id,
        other => panic!("unexpected {other:?}"),
    };
    let (turn, _) = f
        .store
        .edit_user_message(
            old_id,
            "second draft",
            1,
            &smallebot_agent::processes::this_process(),
        )
        .await
        .unwrap();
    f.think(&c, &turn, "let me check").await;
    let long = format!("{}{}", "a".repeat(1000), "z".repeat(1000));
    f.tool(
        &c,
        &turn,
        "c1",
        ("ExecuteCommand", r#"{"command":"ls"}"#),
        &long,
    )
    .await;
    f.tool(
        &c,
        &turn,
        "c2",
        ("ExecuteCommand", r#"{"command":"pwd"}"#),
        "/w",
    )
    .await;
    f.tool(&c, &turn, "c3", ("GetCurrentTime", "{}"), "noon")
        .await;
    f.message(&c, &turn, Role::Assistant, "done").await;

    let text = ok(f.call_in(Some(&c), "ReadConversationData", "{}").await);
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(doc["conversationId"], c.id.to_string());
    assert_eq!(doc["title"], "Timeline");
    let messages = doc["messages"].as_array().unwrap();
    let contents: Vec<&str> = messages
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["second draft", "done"]);
    assert_eq!(messages[0]["role"], "user");
    assert_eq!(messages[0]["edited"], true);
    let calls = doc["toolCalls"].as_array().unwrap();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0]["tool"], "ExecuteCommand");
    assert_eq!(calls[0]["callId"], "c1");
    assert_eq!(calls[0]["arguments"], r#"{"command":"ls"}"#);
    assert_eq!(calls[0]["status"], "ok");
    assert_eq!(
        calls[0]["result"],
        truncate_tool_result(&long, MAX_RESULT).as_ref()
    );
    assert!(calls[0]["result"].as_str().unwrap().contains("[truncated]"));
    assert_eq!(calls[1]["result"], "/w");
    assert_eq!(doc["reasoning"][0]["content"], "let me check");
    assert_eq!(
        doc["toolCounts"],
        json!({"ExecuteCommand": 2, "GetCurrentTime": 1})
    );
    // Every list is in seq order and the seqs interleave into one timeline.
    let seqs = |key: &str| -> Vec<i64> {
        doc[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["seq"].as_i64().unwrap())
            .collect()
    };
    let mut all: Vec<i64> = ["messages", "toolCalls", "reasoning"]
        .iter()
        .flat_map(|k| seqs(k))
        .collect();
    assert!(seqs("toolCalls").windows(2).all(|w| w[0] < w[1]));
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 6);
}
