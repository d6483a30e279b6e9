//! Contract: the rows of a conversation — every entity round trips, tool results are
//! completed by call id, `rows_after` and token sums are exact by `seq` even when
//! timestamps tie, and the running total follows every change. Runs on SQLite and
//! PostgreSQL. (Concurrent appends: `contract_turns.rs`.)

use crate::backends;
use smallebot_application::rewrite;

use crate::backends::{Backend, Kind, OrFail, TOOL, owner};
use chrono::Utc;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    CompressionUpdate, Conversation, HistoryRow, NewMessage, NewThinkBlock, NewToolCall, Role,
    ToolCallCompletion, ToolCallStatus, TurnStatus,
};
use smallebot_core::ids::TurnId;

fn completion(result: &str, token_count: i64) -> ToolCallCompletion {
    ToolCallCompletion {
        result: result.into(),
        status: ToolCallStatus::Ok,
        token_count,
    }
}

fn new_call(c: &Conversation, turn_id: TurnId, call_id: &str, token_count: i64) -> NewToolCall {
    NewToolCall {
        conversation_id: c.id,
        turn_id,
        call_id: call_id.into(),
        tool_name: TOOL.into(),
        arguments: "{}".into(),
        token_count,
    }
}

#[tokio::test]
async fn every_entity_round_trips_and_tool_results_complete_by_call_id() {
    for b in backends::each("every_entity_round_trips").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let read = b.store.get_conversation(c.id).await.or_fail(name);
        assert_eq!(read.as_ref(), Some(&c), "{name}");

        let turn = b.store.start_turn(c.id, true).await.or_fail(name);
        let read = b.store.get_turn(turn.id).await.or_fail(name);
        assert_eq!(read.as_ref(), Some(&turn), "{name}");
        let msg = b
            .store
            .append_message(&NewMessage {
                conversation_id: c.id,
                turn_id: turn.id,
                role: Role::User,
                content: "héllo 世界 🎉".into(),
                token_count: 4,
            })
            .await
            .or_fail(name);
        let think = b
            .store
            .append_think_block(&NewThinkBlock {
                conversation_id: c.id,
                turn_id: turn.id,
                content: "pondering".into(),
            })
            .await
            .or_fail(name);
        let started = b
            .store
            .append_tool_call(&new_call(&c, turn.id, "call_1", 6))
            .await
            .or_fail(name);
        assert_eq!(started.status, ToolCallStatus::Running, "{name}");
        assert_eq!(started.result, None, "{name}");
        let done = b
            .store
            .complete_tool_call(turn.id, "call_1", &completion("12:00", 9))
            .await
            .or_fail(name);
        assert_eq!(done.id, started.id, "{name}");
        assert_eq!(done.result.as_deref(), Some("12:00"), "{name}");
        assert!(done.completed_at.is_some(), "{name}");
        let finished = b
            .store
            .finish_turn(turn.id, TurnStatus::Failed, Some("boom"))
            .await
            .or_fail(name);
        assert_eq!(finished.status, TurnStatus::Failed, "{name}");
        assert_eq!(finished.error.as_deref(), Some("boom"), "{name}");

        let rows = b.rows(&c).await;
        assert_eq!(rows.len(), 3, "{name}");
        assert_eq!(rows[0], HistoryRow::Message(msg), "{name}");
        assert_eq!(rows[1], HistoryRow::ThinkBlock(think), "{name}");
        assert_eq!(rows[2], HistoryRow::ToolCall(done), "{name}");
        assert!(
            turn.seq < rows[0].seq(),
            "{name}: the turn's seq comes before its rows"
        );
        b.store
            .rename_conversation(c.id, "Renamed")
            .await
            .or_fail(name);
        let read = b.store.get_conversation(c.id).await.or_fail(name);
        assert_eq!(read.or_fail(name).title, "Renamed", "{name}");

        // Two calls finished in reverse order: each result lands on its own call.
        let t = b.user_turn(&c, "two tools").await;
        for id in ["a", "b"] {
            let call = new_call(&c, t.id, id, 1);
            b.store.append_tool_call(&call).await.or_fail(name);
        }
        for (id, result) in [("b", "result b"), ("a", "result a")] {
            b.store
                .complete_tool_call(t.id, id, &completion(result, 2))
                .await
                .or_fail(name);
        }
        let calls: Vec<(String, Option<String>)> = b
            .store
            .rows_after(c.id, t.seq)
            .await
            .or_fail(name)
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
            ],
            "{name}"
        );
        let missing = b
            .store
            .complete_tool_call(t.id, "nope", &completion("", 0))
            .await
            .unwrap_err();
        assert!(
            matches!(missing, RepositoryError::NotFound { .. }),
            "{name}: {missing}"
        );
        assert_eq!(
            missing.to_string(),
            format!("tool call nope of turn {} not found", t.id),
            "{name}"
        );
    }
}

/// Gives every turn, message and tool call of the store one timestamp.
async fn tie_timestamps(b: &Backend) {
    match &b.kind {
        Kind::Sqlite(store) => {
            for sql in [
                "UPDATE messages SET created_at = ?1",
                "UPDATE tool_calls SET started_at = ?1, completed_at = ?1",
                "UPDATE turns SET created_at = ?1",
            ] {
                sqlx::query(sql)
                    .bind("2026-01-01T00:00:00.000Z")
                    .execute(store.pool())
                    .await
                    .or_fail(b.name);
            }
        }
        Kind::Postgres(store, _) => {
            let stamp = chrono::DateTime::parse_from_rfc3339("2026-01-01T00:00:00.000Z")
                .or_fail(b.name)
                .with_timezone(&Utc);
            for sql in [
                "UPDATE messages SET created_at = $1",
                "UPDATE tool_calls SET started_at = $1, completed_at = $1",
                "UPDATE turns SET created_at = $1",
            ] {
                sqlx::query(sql)
                    .bind(stamp)
                    .execute(store.pool())
                    .await
                    .or_fail(b.name);
            }
        }
    }
}

#[tokio::test]
async fn rows_after_seq_are_exact_even_when_timestamps_tie() {
    for b in backends::each("rows_after_seq_are_exact_even_when_timestamps_tie").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        for i in 0..5 {
            let t = b.user_turn(&c, &format!("q{i}")).await;
            b.tool(&c, &t, &format!("call{i}"), "{}", "r").await;
            b.assistant(&c, &t, &format!("a{i}")).await;
        }
        tie_timestamps(&b).await;
        let all = b.rows(&c).await;
        assert_eq!(all.len(), 15, "{name}");
        for n in [0, all[3].seq(), all[7].seq(), all[14].seq()] {
            let after = b.store.rows_after(c.id, n).await.or_fail(name);
            let expected: Vec<_> = all.iter().filter(|r| r.seq() > n).cloned().collect();
            assert_eq!(after, expected, "{name}: after {n}");
            let sum = b.store.token_sum_after(c.id, n).await.or_fail(name);
            let expected_sum: i64 = expected.iter().map(HistoryRow::token_count).sum();
            assert_eq!(sum, expected_sum, "{name}: token sum after {n}");
        }
        // 5 x (user 3 + tool 11 + assistant 5)
        let sum = b.store.token_sum_after(c.id, 0).await.or_fail(name);
        assert_eq!(sum, 95, "{name}");
    }
}

/// The rows' tokens after `boundary`, without replaced messages.
fn expected(rows: &[HistoryRow], boundary: i64) -> i64 {
    rows.iter()
        .filter(|r| r.seq() > boundary)
        .filter(|r| !matches!(r, HistoryRow::Message(m) if m.replaced_by.is_some()))
        .map(HistoryRow::token_count)
        .sum()
}

/// The running total at the boundary always equals the sum it replaces.
#[tokio::test]
async fn the_context_token_total_follows_every_change() {
    for b in backends::each("the_context_token_total_follows_every_change").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let context_tokens = |b: &Backend| {
            let (store, id) = (b.store.clone(), c.id);
            async move {
                let read = store.get_conversation(id).await.or_fail(name);
                read.or_fail(name).context_tokens
            }
        };
        let t1 = b.user_turn(&c, "one").await;
        b.assistant(&c, &t1, "answer").await;
        b.tool(&c, &t1, "x", "{}", "result").await;
        let t2 = b.user_turn(&c, "two").await;
        b.assistant(&c, &t2, "answer two").await;
        let rows = b.rows(&c).await;
        assert_eq!(context_tokens(&b).await, expected(&rows, 0), "{name}");
        let sum = b.store.token_sum_after(c.id, 0).await.or_fail(name);
        assert_eq!(sum, expected(&rows, 0), "{name}");

        // Compression moves the boundary: the total is recomputed.
        let boundary = rows[2].seq();
        let update = CompressionUpdate {
            compressed_context: "s".into(),
            compressed_at: Utc::now(),
            compressed_through_seq: boundary,
            expected_previous_seq: None,
        };
        b.store.set_compression(c.id, &update).await.or_fail(name);
        assert_eq!(
            context_tokens(&b).await,
            expected(&rows, boundary),
            "{name}"
        );
        let sum = b.store.token_sum_after(c.id, boundary).await.or_fail(name);
        assert_eq!(sum, expected(&rows, boundary), "{name}");
        let sum = b.store.token_sum_after(c.id, 0).await.or_fail(name);
        assert_eq!(sum, expected(&rows, 0), "{name}: other seqs still sum");

        // Edit (replace + delete) and a later append keep it exact.
        let two = rows
            .iter()
            .find_map(|r| match r {
                HistoryRow::Message(m) if m.content == "two" => Some(m.id),
                _ => None,
            })
            .or_fail(name);
        let (turn, _) = rewrite::edit_user_message(&*b.store, two, "two, edited", 9, &owner())
            .await
            .or_fail(name);
        b.assistant(&c, &turn, "answer to the edit").await;
        let rows = b.rows(&c).await;
        let sum = b.store.token_sum_after(c.id, boundary).await.or_fail(name);
        assert_eq!(sum, expected(&rows, boundary), "{name}");
        assert_eq!(
            context_tokens(&b).await,
            expected(&rows, boundary),
            "{name}"
        );
        // Deleting everything: the conversation is gone, no error.
        assert!(
            b.store.delete_conversation(c.id).await.or_fail(name),
            "{name}"
        );
    }
}
