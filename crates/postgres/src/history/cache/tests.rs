#![allow(clippy::unwrap_used, clippy::expect_used)]

use smallebot_core::entities::{HistoryRow, NewTurn, StartedTurn, ToolCall, ToolCallStatus};
use smallebot_core::ids::{ConversationId, ToolCallId, TurnId};

use super::{CAPACITY, RowsCache, Written};

fn call(conversation: ConversationId, turn: TurnId, seq: i64, status: ToolCallStatus) -> ToolCall {
    ToolCall {
        id: ToolCallId::new(),
        conversation_id: conversation,
        turn_id: turn,
        seq,
        call_id: format!("call_{seq}"),
        tool_name: "GetCurrentTime".into(),
        arguments: "{}".into(),
        result: (status != ToolCallStatus::Running).then(|| "now".into()),
        status,
        token_count: 3,
        started_at: chrono::Utc::now(),
        completed_at: None,
    }
}

fn appended(rows: &[HistoryRow], turn: TurnId, ended: bool) -> Written<'_> {
    Written::Appended { rows, turn, ended }
}

#[test]
fn kept_rows_answer_only_their_version_and_boundary() {
    let cache = RowsCache::default();
    let (c, t) = (ConversationId::new(), TurnId::new());
    let rows = vec![HistoryRow::ToolCall(call(c, t, 2, ToolCallStatus::Ok))];
    cache.keep(c, 0, 7, &rows);
    assert_eq!(cache.version(c, 0), Some(7));
    assert_eq!(cache.version(c, 1), None, "another boundary");
    assert_eq!(cache.rows(c, 0, 7), Some(rows));
    assert_eq!(cache.rows(c, 0, 8), None, "another version");
    assert_eq!(cache.rows(ConversationId::new(), 0, 7), None);
}

#[test]
fn a_write_one_version_ahead_is_applied_any_other_forgets_or_is_already_in() {
    let (c, t) = (ConversationId::new(), TurnId::new());
    let running = call(c, t, 2, ToolCallStatus::Running);
    let mut done = running.clone();
    done.status = ToolCallStatus::Ok;
    done.result = Some("now".into());
    let next = [HistoryRow::ToolCall(call(c, t, 3, ToolCallStatus::Running))];

    // One ahead: applied, in order.
    let cache = RowsCache::default();
    cache.keep(c, 0, 1, &[HistoryRow::ToolCall(running.clone())]);
    cache.written(c, 2, Written::Completed(&[&done]));
    cache.written(c, 3, appended(&next, t, false));
    let rows = cache.rows(c, 0, 3).expect("brought along");
    assert_eq!(rows[0], HistoryRow::ToolCall(done.clone()));
    assert_eq!(rows[1], next[0]);

    // A version missed (another writer): forgotten.
    let cache = RowsCache::default();
    cache.keep(c, 0, 1, &[]);
    cache.written(c, 3, appended(&next, t, false));
    assert_eq!(cache.version(c, 0), None);

    // A read already kept that version: left as it is.
    let cache = RowsCache::default();
    cache.keep(c, 0, 3, &next);
    cache.written(c, 3, appended(&next, t, false));
    assert_eq!(cache.rows(c, 0, 3), Some(next.to_vec()));

    // An older read never replaces newer rows.
    cache.keep(c, 0, 2, &[]);
    assert_eq!(cache.rows(c, 0, 3), Some(next.to_vec()));

    // A completed call the rows do not hold: forgotten.
    let cache = RowsCache::default();
    cache.keep(c, 0, 1, &[]);
    cache.written(c, 2, Written::Completed(&[&done]));
    assert_eq!(cache.version(c, 0), None);
}

#[test]
fn a_step_ending_its_turn_with_a_call_still_running_forgets_the_rows() {
    let (c, t) = (ConversationId::new(), TurnId::new());
    let cache = RowsCache::default();
    cache.keep(
        c,
        0,
        1,
        &[HistoryRow::ToolCall(call(c, t, 2, ToolCallStatus::Running))],
    );
    cache.written(c, 2, appended(&[], t, true));
    assert_eq!(cache.version(c, 0), None, "the end interrupts that call");

    // A running call of another turn is not this end's business.
    cache.keep(
        c,
        0,
        1,
        &[HistoryRow::ToolCall(call(
            c,
            TurnId::new(),
            2,
            ToolCallStatus::Running,
        ))],
    );
    cache.written(c, 2, appended(&[], t, true));
    assert_eq!(cache.version(c, 0), Some(2));
}

#[test]
fn at_most_capacity_conversations_are_kept_the_least_recently_used_goes() {
    let cache = RowsCache::default();
    let first = ConversationId::new();
    cache.keep(first, 0, 1, &[]);
    let second = ConversationId::new();
    cache.keep(second, 0, 1, &[]);
    for _ in 2..CAPACITY {
        cache.keep(ConversationId::new(), 0, 1, &[]);
    }
    // The first is used again: the second is now the oldest.
    assert!(cache.rows(first, 0, 1).is_some());
    cache.keep(ConversationId::new(), 0, 1, &[]);
    assert_eq!(cache.version(first, 0), Some(1));
    assert_eq!(cache.version(second, 0), None);
}

/// The conversation's version in the database.
async fn stored_version(store: &crate::PgStore, c: ConversationId) -> i64 {
    sqlx::query_scalar("SELECT version FROM conversations WHERE id = $1")
        .bind(c.to_string())
        .fetch_one(store.pool())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_turns_own_writes_keep_the_copy_current_a_write_of_another_process_leaves_it_behind() {
    use smallebot_core::entities::{
        LeaseOwner, NewStep, StepMessage, StepToolCall, ToolCallCompletion, TurnEnd, TurnStatus,
    };
    use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};

    let Some(cluster) = smallebot_testkit::postgres::TestCluster::start("kept_rows_follow") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let store = crate::PgStore::connect(&url).await.unwrap();
    let other = crate::PgStore::connect(&url).await.unwrap();
    let c = store.create_conversation("ann", "New").await.unwrap();
    let owner = LeaseOwner {
        pid: 1,
        host: "h".into(),
        started_at: chrono::Utc::now(),
    };
    let step = |turn: TurnId, call: Option<&str>| NewStep {
        conversation_id: c.id,
        turn_id: turn,
        reasoning: None,
        message: call.is_none().then(|| StepMessage {
            content: "noon".into(),
            token_count: 2,
        }),
        tool_calls: call
            .map(|id| StepToolCall {
                call_id: id.into(),
                tool_name: "GetCurrentTime".into(),
                arguments: "{}".into(),
                token_count: 2,
            })
            .into_iter()
            .collect(),
        end: call.is_none().then_some(TurnEnd {
            status: TurnStatus::Completed,
            error: None,
            cut: None,
        }),
    };
    let current = |store: &crate::PgStore| store.rows_cache().version(c.id, 0);
    for text in ["first", "second"] {
        let StartedTurn { turn, .. } = store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                ..NewTurn::new(c.id, text, &owner)
            })
            .await
            .unwrap();
        store.context_rows_after(c.id, 0).await.unwrap();
        store.record_step(&step(turn.id, Some("c1"))).await.unwrap();
        let done = ToolCallCompletion {
            result: "noon".into(),
            status: ToolCallStatus::Ok,
            token_count: 3,
        };
        store
            .complete_tool_call(turn.id, "c1", &done)
            .await
            .unwrap();
        store.record_step(&step(turn.id, None)).await.unwrap();
        assert_eq!(
            current(&store),
            Some(stored_version(&store, c.id).await),
            "after the {text} turn the copy is current: the next read sends no rows"
        );
    }
    let kept = store.context_rows_after(c.id, 0).await.unwrap();
    assert_eq!(kept.len(), 2 * 3, "two turns: message, call, answer each");

    other.mark_counts_provisional(c.id, 1).await.unwrap();
    other.set_exact_counts(c.id, &[(2, 5)], 10).await.unwrap();
    assert_ne!(
        current(&store),
        Some(stored_version(&store, c.id).await),
        "another process's write moved the version past the copy"
    );
    let read = store.context_rows_after(c.id, 0).await.unwrap();
    assert_eq!(read.iter().map(HistoryRow::token_count).next(), Some(5));
    assert_eq!(current(&store), Some(stored_version(&store, c.id).await));
}
