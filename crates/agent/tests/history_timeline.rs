//! `ReadConversationData` over a real SQLite store.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod history_support;

use history_support::*;
use serde_json::{Value, json};
use smallebot_agent::tools::ReadConversationData;
use smallebot_application::rewrite;
use smallebot_core::entities::{HistoryRow, Role};
use smallebot_core::repository::{HistoryRepository, TurnRepository};
use smallebot_core::test_support::RowFixtures;

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
    let (turn, _) = rewrite::edit_user_message(
        &f.store,
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
    // Texts are cut only beyond a quarter of the page.
    assert_eq!(calls[0]["result"], long.as_str());
    assert_eq!(
        (doc["totalRows"].clone(), doc["offset"].clone()),
        (json!(6), json!(0))
    );
    assert_eq!(
        (doc["returned"].clone(), doc["nextOffset"].clone()),
        (json!(6), Value::Null)
    );
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

/// Every page of a 10 000-row conversation, followed by `nextOffset`.
#[tokio::test]
async fn a_ten_thousand_row_conversation_reads_in_valid_pages_that_fit() {
    let f = fixture().await;
    let c = f.conversation("alice", "Long").await;
    let huge = "x".repeat(100_000);
    for i in 0..2_500 {
        let turn = f.user(&c, &format!("question {i}")).await;
        f.think(&c, &turn, "thinking").await;
        let result = if i == 7 {
            huge.as_str()
        } else {
            "small result"
        };
        f.tool(&c, &turn, "c1", ("GetCurrentTime", "{}"), result)
            .await;
        f.message(&c, &turn, Role::Assistant, &format!("answer {i}"))
            .await;
    }
    let small = ReadConversationData::new(f.store_arc(), 4_000);
    let mut offset = 0u64;
    let mut seen = Vec::new();
    let mut pages = 0;
    loop {
        let text = ok(f
            .call_tool(&c, &small, &json!({"offset": offset, "limit": 500}))
            .await);
        assert!(
            text.chars().count() <= 4_000,
            "page at {offset}: {} chars",
            text.len()
        );
        let doc: Value = serde_json::from_str(&text).expect("every page is whole JSON");
        assert_eq!(doc["totalRows"], 10_000);
        assert_eq!(doc["offset"], offset);
        let returned = doc["returned"].as_u64().unwrap();
        assert!(returned > 0, "a page moves on");
        for key in ["messages", "toolCalls", "reasoning"] {
            for row in doc[key].as_array().unwrap() {
                seen.push(row["seq"].as_i64().unwrap());
                if let Some(result) = row["result"].as_str() {
                    assert!(
                        result.len() < 2_000,
                        "a huge result is cut: {}",
                        result.len()
                    );
                }
            }
        }
        pages += 1;
        match doc["nextOffset"].as_u64() {
            Some(next) => {
                assert_eq!(next, offset + returned);
                offset = next;
            }
            None => {
                assert_eq!(offset + returned, 10_000);
                break;
            }
        }
    }
    seen.sort_unstable();
    let count = seen.len();
    seen.dedup();
    assert_eq!((count, seen.len()), (10_000, 10_000), "every row once");
    assert!(pages >= 20, "{pages} pages");

    let past_the_end = ok(f.call_tool(&c, &small, &json!({"offset": 20_000})).await);
    let doc: Value = serde_json::from_str(&past_the_end).unwrap();
    assert_eq!(
        (doc["returned"].clone(), doc["nextOffset"].clone()),
        (json!(0), Value::Null)
    );
    let bad = error(f.call_tool(&c, &small, &json!({"limit": 0})).await);
    assert!(bad.contains("limit must be between 1 and 500"), "{bad}");
}
