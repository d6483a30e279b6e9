//! Rows of a conversation: round trips, atomic seq, order, token sums.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use smallebot_application::rewrite;
use smallebot_core::test_support::RowFixtures;
use std::collections::HashSet;
use std::sync::Arc;

use chrono::Utc;
use common::*;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    CompressionUpdate, HistoryRow, NewMessage, NewThinkBlock, NewToolCall, Role,
    ToolCallCompletion, ToolCallStatus, TurnStatus,
};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};

#[tokio::test]
async fn every_entity_round_trips() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    assert_eq!(f.store.get_conversation(c.id).await.unwrap().unwrap(), c);

    let turn = f.store.start_turn(c.id, true).await.unwrap();
    assert_eq!(f.store.get_turn(turn.id).await.unwrap().unwrap(), turn);
    let msg = f
        .store
        .append_message(&NewMessage {
            conversation_id: c.id,
            turn_id: turn.id,
            role: Role::User,
            content: "héllo 世界 🎉".into(),
            token_count: 4,
        })
        .await
        .unwrap();
    let think = f
        .store
        .append_think_block(&NewThinkBlock {
            conversation_id: c.id,
            turn_id: turn.id,
            content: "pondering".into(),
        })
        .await
        .unwrap();
    let started = f
        .store
        .append_tool_call(&NewToolCall {
            conversation_id: c.id,
            turn_id: turn.id,
            call_id: "call_1".into(),
            tool_name: "GetCurrentTime".into(),
            arguments: "{}".into(),
            token_count: 6,
        })
        .await
        .unwrap();
    assert_eq!(started.status, ToolCallStatus::Running);
    assert_eq!(started.result, None);
    let done = f
        .store
        .complete_tool_call(
            turn.id,
            "call_1",
            &ToolCallCompletion {
                result: "12:00".into(),
                status: ToolCallStatus::Ok,
                token_count: 9,
            },
        )
        .await
        .unwrap();
    assert_eq!(done.id, started.id);
    assert_eq!(done.result.as_deref(), Some("12:00"));
    assert!(done.completed_at.is_some());
    let finished = f
        .store
        .finish_turn(turn.id, TurnStatus::Failed, Some("boom"))
        .await
        .unwrap();
    assert_eq!(finished.status, TurnStatus::Failed);
    assert_eq!(finished.error.as_deref(), Some("boom"));

    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0], HistoryRow::Message(msg));
    assert_eq!(rows[1], HistoryRow::ThinkBlock(think));
    assert_eq!(rows[2], HistoryRow::ToolCall(done));
    assert!(
        turn.seq < rows[0].seq(),
        "the turn's seq comes before its rows"
    );

    f.store.rename_conversation(c.id, "Renamed").await.unwrap();
    assert_eq!(
        f.store.get_conversation(c.id).await.unwrap().unwrap().title,
        "Renamed"
    );
}

#[tokio::test]
async fn concurrent_appends_get_distinct_increasing_seq() {
    let f = fixture().await;
    let store = Arc::new(f.store.clone());
    let c = conversation(&store, "alice").await;
    let turn = store.start_turn(c.id, false).await.unwrap();
    let mut tasks = Vec::new();
    for i in 0..20 {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move {
            store
                .append_message(&NewMessage {
                    conversation_id: c.id,
                    turn_id: turn.id,
                    role: Role::Assistant,
                    content: format!("message {i}"),
                    token_count: 1,
                })
                .await
                .unwrap()
                .seq
        }));
    }
    let mut seqs = Vec::new();
    for t in tasks {
        seqs.push(t.await.unwrap());
    }
    let distinct: HashSet<_> = seqs.iter().copied().collect();
    assert_eq!(distinct.len(), 20, "duplicate seq in {seqs:?}");
    let rows = store.rows_after(c.id, 0).await.unwrap();
    let stored: Vec<i64> = rows.iter().map(HistoryRow::seq).collect();
    let mut sorted = stored.clone();
    sorted.sort_unstable();
    assert_eq!(stored, sorted);
    assert_eq!(stored.len(), 20);
    assert!(stored.iter().all(|s| *s > turn.seq));
}

#[tokio::test]
async fn rows_after_seq_are_exact_even_when_timestamps_tie() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    for i in 0..5 {
        let t = user_turn(&f.store, &c, &format!("q{i}")).await;
        tool(&f.store, &c, &t, &format!("call{i}"), "{}", "r").await;
        assistant(&f.store, &c, &t, &format!("a{i}")).await;
    }
    let stamp = "2026-01-01T00:00:00.000Z";
    for sql in [
        "UPDATE messages SET created_at = ?1",
        "UPDATE tool_calls SET started_at = ?1, completed_at = ?1",
        "UPDATE turns SET created_at = ?1",
    ] {
        sqlx::query(sql)
            .bind(stamp)
            .execute(f.store.pool())
            .await
            .unwrap();
    }
    let all = f.store.rows_after(c.id, 0).await.unwrap();
    assert_eq!(all.len(), 15);
    for n in [0, all[3].seq(), all[7].seq(), all[14].seq()] {
        let after = f.store.rows_after(c.id, n).await.unwrap();
        let expected: Vec<_> = all.iter().filter(|r| r.seq() > n).cloned().collect();
        assert_eq!(after, expected, "after {n}");
        let sum = f.store.token_sum_after(c.id, n).await.unwrap();
        let expected_sum: i64 = expected.iter().map(HistoryRow::token_count).sum();
        assert_eq!(sum, expected_sum, "token sum after {n}");
    }
    // 5 x (user 3 + tool 11 + assistant 5)
    assert_eq!(f.store.token_sum_after(c.id, 0).await.unwrap(), 95);
}

#[tokio::test]
async fn tool_results_are_completed_by_call_id() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t = user_turn(&f.store, &c, "two tools").await;
    for id in ["a", "b"] {
        f.store
            .append_tool_call(&NewToolCall {
                conversation_id: c.id,
                turn_id: t.id,
                call_id: id.into(),
                tool_name: "T".into(),
                arguments: "{}".into(),
                token_count: 1,
            })
            .await
            .unwrap();
    }
    // Finish in reverse order.
    for (id, result) in [("b", "result b"), ("a", "result a")] {
        f.store
            .complete_tool_call(
                t.id,
                id,
                &ToolCallCompletion {
                    result: result.into(),
                    status: ToolCallStatus::Ok,
                    token_count: 2,
                },
            )
            .await
            .unwrap();
    }
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let calls: Vec<(String, Option<String>)> = rows
        .iter()
        .filter_map(|r| match r {
            HistoryRow::ToolCall(tc) => Some((tc.call_id.clone(), tc.result.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("a".into(), Some("result a".into())),
            ("b".into(), Some("result b".into()))
        ]
    );
    let missing = f
        .store
        .complete_tool_call(
            t.id,
            "nope",
            &ToolCallCompletion {
                result: String::new(),
                status: ToolCallStatus::Ok,
                token_count: 0,
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(missing, RepositoryError::NotFound { .. }));
}

/// The running total at the boundary always equals the SUM it replaces.
#[tokio::test]
async fn the_context_token_total_follows_every_change() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let sum = |store: &smallebot_infrastructure::SqliteStore, id| {
        let store = store.clone();
        async move {
            let total: i64 =
                sqlx::query_scalar("SELECT context_tokens FROM conversations WHERE id = ?1")
                    .bind(id)
                    .fetch_one(store.pool())
                    .await
                    .unwrap();
            total
        }
    };
    let expected = |rows: &[HistoryRow], boundary: i64| -> i64 {
        rows.iter()
            .filter(|r| r.seq() > boundary)
            .filter(|r| !matches!(r, HistoryRow::Message(m) if m.replaced_by.is_some()))
            .map(HistoryRow::token_count)
            .sum()
    };
    let t1 = user_turn(&f.store, &c, "one").await;
    assistant(&f.store, &c, &t1, "answer").await;
    tool(&f.store, &c, &t1, "x", "{}", "result").await;
    let t2 = user_turn(&f.store, &c, "two").await;
    assistant(&f.store, &c, &t2, "answer two").await;
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    assert_eq!(sum(&f.store, c.id.to_string()).await, expected(&rows, 0));
    assert_eq!(
        f.store.token_sum_after(c.id, 0).await.unwrap(),
        expected(&rows, 0)
    );

    // Compression moves the boundary: the total is recomputed.
    let boundary = rows[2].seq();
    f.store
        .set_compression(
            c.id,
            &CompressionUpdate {
                compressed_context: "s".into(),
                compressed_at: Utc::now(),
                compressed_through_seq: boundary,
                expected_previous_seq: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(
        f.store.token_sum_after(c.id, boundary).await.unwrap(),
        expected(&rows, boundary)
    );
    assert_eq!(
        f.store.token_sum_after(c.id, 0).await.unwrap(),
        expected(&rows, 0),
        "other seqs still sum"
    );

    // Edit (replace + delete) and a later append keep it exact.
    let HistoryRow::Message(two) = rows
        .iter()
        .find(|r| matches!(r, HistoryRow::Message(m) if m.content == "two"))
        .unwrap()
    else {
        panic!()
    };
    rewrite::edit_user_message(&f.store, two.id, "two, edited", 9, &owner())
        .await
        .unwrap();
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    assert_eq!(
        f.store.token_sum_after(c.id, boundary).await.unwrap(),
        expected(&rows, boundary)
    );
    // Deleting everything: the conversation is gone, nothing to check but no error.
    assert!(f.store.delete_conversation(c.id).await.unwrap());
}
