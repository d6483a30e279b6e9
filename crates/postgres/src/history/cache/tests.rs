#![allow(clippy::unwrap_used, clippy::expect_used)]

use smallebot_core::entities::{HistoryRow, ToolCall, ToolCallStatus};
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
