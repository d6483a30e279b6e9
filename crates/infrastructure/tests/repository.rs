//! Repository behaviour on real SQLite files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

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
async fn deleting_a_conversation_removes_every_child_and_its_index_rows() {
    let f = fixture().await;
    let keep = conversation(&f.store, "alice").await;
    let t = user_turn(&f.store, &keep, "keep me").await;
    assistant(&f.store, &keep, &t, "kept").await;

    let c = conversation(&f.store, "alice").await;
    let turn = user_turn(&f.store, &c, "zebra question").await;
    assistant(&f.store, &c, &turn, "zebra answer").await;
    tool(
        &f.store,
        &c,
        &turn,
        "c1",
        r#"{"command":"ls zebra"}"#,
        "zebra.txt",
    )
    .await;
    f.store
        .append_think_block(&NewThinkBlock {
            conversation_id: c.id,
            turn_id: turn.id,
            content: "hmm".into(),
        })
        .await
        .unwrap();
    assert!(f.store.delete_conversation(c.id).await.unwrap());
    assert!(!f.store.delete_conversation(c.id).await.unwrap());
    assert!(f.store.get_conversation(c.id).await.unwrap().is_none());
    for sql in [
        "SELECT COUNT(*) FROM turns WHERE conversation_id NOT IN (SELECT id FROM conversations)",
        "SELECT COUNT(*) FROM messages WHERE conversation_id NOT IN (SELECT id FROM conversations)",
        "SELECT COUNT(*) FROM tool_calls WHERE conversation_id NOT IN (SELECT id FROM conversations)",
        "SELECT COUNT(*) FROM think_blocks WHERE conversation_id NOT IN (SELECT id FROM conversations)",
        "SELECT COUNT(*) FROM search_rows WHERE conversation_id NOT IN (SELECT id FROM conversations)",
        "SELECT COUNT(*) FROM search_fts WHERE search_fts MATCH 'zebra'",
    ] {
        assert_eq!(count(&f.store, sql).await, 0, "{sql}");
    }
    // The other conversation is untouched: 2 messages, 2 index rows.
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM messages").await, 2);
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM search_fts").await, 2);
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
async fn compression_update_is_all_or_nothing() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t1 = user_turn(&f.store, &c, "first").await;
    assistant(&f.store, &c, &t1, "one").await;
    let t2 = user_turn(&f.store, &c, "second").await;
    assistant(&f.store, &c, &t2, "two").await;
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let boundary = rows[1].seq();
    let update = |through, expected| CompressionUpdate {
        compressed_context: "summary".into(),
        compressed_at: Utc::now(),
        compressed_through_seq: through,
        expected_previous_seq: expected,
    };
    let before = f.store.get_conversation(c.id).await.unwrap().unwrap();

    // Refused: a seq that names no row (the turn's own seq), wrong expectation.
    let turn_seq = t2.seq;
    for bad in [
        update(turn_seq, None),
        update(9999, None),
        update(boundary, Some(1)),
    ] {
        let err = f.store.set_compression(c.id, &bad).await.unwrap_err();
        assert!(matches!(err, RepositoryError::Conflict(_)), "{err}");
        assert_eq!(
            f.store.get_conversation(c.id).await.unwrap().unwrap(),
            before
        );
    }

    let after = f
        .store
        .set_compression(c.id, &update(boundary, None))
        .await
        .unwrap();
    assert_eq!(after.compressed_context.as_deref(), Some("summary"));
    assert_eq!(after.compressed_through_seq, Some(boundary));
    assert!(after.compressed_at.is_some());

    // Backwards or stale: refused, unchanged.
    for bad in [
        update(boundary, Some(boundary)),
        update(rows[3].seq(), None),
    ] {
        assert!(f.store.set_compression(c.id, &bad).await.is_err());
        assert_eq!(
            f.store.get_conversation(c.id).await.unwrap().unwrap(),
            after
        );
    }
    // Rows stay: nothing is deleted by compression.
    assert_eq!(f.store.rows_after(c.id, 0).await.unwrap().len(), 4);
}

#[tokio::test]
async fn running_turns_become_interrupted() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let running = user_turn(&f.store, &c, "in flight").await;
    let done = user_turn(&f.store, &c, "done").await;
    f.store
        .finish_turn(done.id, TurnStatus::Completed, None)
        .await
        .unwrap();
    assert_eq!(f.store.mark_running_turns_interrupted().await.unwrap(), 1);
    let t = f.store.get_turn(running.id).await.unwrap().unwrap();
    assert_eq!(t.status, TurnStatus::Interrupted);
    assert_eq!(
        f.store.get_turn(done.id).await.unwrap().unwrap().status,
        TurnStatus::Completed
    );
    // The user message is still there.
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    assert!(matches!(&rows[0], HistoryRow::Message(m) if m.content == "in flight"));
}

#[tokio::test]
async fn edit_discards_later_turns_and_marks_the_old_message_replaced() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t1 = user_turn(&f.store, &c, "keep").await;
    assistant(&f.store, &c, &t1, "kept answer").await;
    let t2 = user_turn(&f.store, &c, "typo").await;
    tool(&f.store, &c, &t2, "x", "{}", "r").await;
    assistant(&f.store, &c, &t2, "answer to typo").await;
    let t3 = user_turn(&f.store, &c, "later").await;
    assistant(&f.store, &c, &t3, "later answer").await;

    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let HistoryRow::Message(typo) = &rows[2] else {
        panic!("expected message")
    };
    let (turn, edited) = f
        .store
        .edit_user_message(typo.id, "fixed", 2)
        .await
        .unwrap();
    assert!(edited.is_edited);
    assert_eq!(edited.turn_id, turn.id);
    assert_eq!(turn.status, TurnStatus::Running);

    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let texts: Vec<String> = rows
        .iter()
        .map(|r| match r {
            HistoryRow::Message(m) => format!(
                "{}:{}:{}",
                m.role.as_str(),
                m.content,
                m.replaced_by.is_some()
            ),
            other => format!("other {}", other.seq()),
        })
        .collect();
    assert_eq!(
        texts,
        [
            "user:keep:false",
            "assistant:kept answer:false",
            "user:typo:true",
            "user:fixed:false"
        ]
    );
    assert_eq!(f.store.list_turns(c.id).await.unwrap().len(), 3);
    // The replaced message is excluded from the token sum.
    assert_eq!(f.store.token_sum_after(c.id, 0).await.unwrap(), 3 + 5 + 2);
    // Editing the replaced message again is refused.
    assert!(
        f.store
            .edit_user_message(typo.id, "again", 1)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn regenerate_discards_the_turn_output_and_later_turns() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t1 = user_turn(&f.store, &c, "question").await;
    tool(&f.store, &c, &t1, "x", "{}", "r").await;
    assistant(&f.store, &c, &t1, "bad answer").await;
    f.store
        .finish_turn(t1.id, TurnStatus::Completed, None)
        .await
        .unwrap();
    let t2 = user_turn(&f.store, &c, "later").await;
    assistant(&f.store, &c, &t2, "later answer").await;

    let (turn, user) = f.store.reset_turn_for_regeneration(t1.id).await.unwrap();
    assert_eq!(turn.status, TurnStatus::Running);
    assert_eq!(user.content, "question");
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(f.store.list_turns(c.id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn summarized_rows_cannot_be_edited_or_regenerated() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t1 = user_turn(&f.store, &c, "old").await;
    assistant(&f.store, &c, &t1, "old answer").await;
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    f.store
        .set_compression(
            c.id,
            &CompressionUpdate {
                compressed_context: "s".into(),
                compressed_at: Utc::now(),
                compressed_through_seq: rows[1].seq(),
                expected_previous_seq: None,
            },
        )
        .await
        .unwrap();
    let HistoryRow::Message(old) = &rows[0] else {
        panic!()
    };
    let err = f
        .store
        .edit_user_message(old.id, "new", 1)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("summarized"), "{err}");
    assert!(f.store.reset_turn_for_regeneration(t1.id).await.is_err());
    assert_eq!(f.store.rows_after(c.id, 0).await.unwrap(), rows);
}

#[tokio::test]
async fn list_is_per_user_and_newest_first() {
    let f = fixture().await;
    let a1 = conversation(&f.store, "alice").await;
    let b1 = conversation(&f.store, "bob").await;
    let a2 = conversation(&f.store, "alice").await;
    let alice: Vec<_> = f
        .store
        .list_conversations(Some("alice"))
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(alice, [a2.id, a1.id]);
    // Activity moves a conversation to the top.
    user_turn(&f.store, &a1, "bump").await;
    let all: Vec<_> = f
        .store
        .list_conversations(None)
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(all[0], a1.id);
    assert_eq!(all.len(), 3);
    assert!(all.contains(&b1.id));
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
    f.store
        .edit_user_message(two.id, "two, edited", 9)
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

#[tokio::test]
async fn a_turn_starts_with_its_message_or_not_at_all() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let (turn, message) = f
        .store
        .start_turn_with_message(c.id, false, "hello", 3)
        .await
        .unwrap();
    assert_eq!(turn.seq, 1, "a conversation's first turn has seq 1");
    assert_eq!(
        (message.turn_id, message.seq, message.role),
        (turn.id, 2, Role::User)
    );
    let missing = smallebot_core::ids::ConversationId::new();
    let err = f
        .store
        .start_turn_with_message(missing, false, "lost?", 1)
        .await
        .unwrap_err();
    assert!(matches!(err, RepositoryError::NotFound { .. }), "{err}");
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM turns").await, 1);
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM messages").await, 1);
}
