//! Group commit: jobs queued while the writer is busy run together, each gets its own
//! rows, and a failing job fails alone with nothing of it stored.

use smallebot_core::test_support::RowFixtures;
use std::time::Duration;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    Conversation, FirstTurnTitle, HistoryRow, LeaseOwner, NewMessage, NewStep, NewTurn, Role,
    StartedTurn, StepMessage, StepToolCall, ToolCallCompletion, ToolCallStatus, Turn, TurnEnd,
    TurnStatus,
};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};

use crate::database::SqliteStore;

async fn store() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("t.db")).await.unwrap();
    (dir, store)
}

#[tokio::test]
async fn statement_journals_of_the_write_connection_stay_in_memory() {
    // 2 = MEMORY: a batch's savepoint journals never become temporary files.
    let (_dir, store) = store().await;
    assert_eq!(store.writer().pragma("temp_store"), 2);
}

#[tokio::test]
async fn the_write_connection_checkpoints_a_short_log() {
    // SQLite's default is 1 000 pages; a commit past the length checkpoints the log.
    let (_dir, store) = store().await;
    assert_eq!(store.writer().pragma("wal_autocheckpoint"), 300);
}

/// A conversation with a running turn and its user message (seqs 1 and 2).
async fn running(store: &SqliteStore) -> (Conversation, Turn) {
    let c = store.create_conversation("u", "t").await.unwrap();
    let turn = store.start_turn(c.id, false).await.unwrap();
    store
        .append_message(&NewMessage {
            conversation_id: c.id,
            turn_id: turn.id,
            role: Role::User,
            content: "question".into(),
            token_count: 1,
        })
        .await
        .unwrap();
    (c, turn)
}

fn step(turn: &Turn, text: &str, calls: &[&str], end: bool) -> NewStep {
    NewStep {
        conversation_id: turn.conversation_id,
        turn_id: turn.id,
        reasoning: Some(format!("thinking about {text}")),
        message: Some(StepMessage {
            content: text.to_owned(),
            token_count: 2,
        }),
        tool_calls: calls
            .iter()
            .map(|id| StepToolCall {
                call_id: (*id).to_owned(),
                tool_name: "T".into(),
                arguments: "{}".into(),
                token_count: 1,
            })
            .collect(),
        end: end.then_some(TurnEnd {
            status: TurnStatus::Completed,
            error: None,
            cut: None,
        }),
    }
}

fn seqs(rows: &[HistoryRow]) -> Vec<i64> {
    rows.iter().map(HistoryRow::seq).collect()
}

/// Waits until `n` jobs are queued (the writer is held meanwhile).
async fn queued(store: &SqliteStore, n: usize) {
    for _ in 0..500 {
        let len = store.writer().queued();
        if len >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("{n} jobs never queued");
}

#[tokio::test]
async fn queued_steps_and_results_of_many_turns_run_together_each_with_its_own_rows() {
    let (_dir, store) = store().await;
    let mut turns = Vec::new();
    for _ in 0..6 {
        turns.push(running(&store).await);
    }
    // A call to complete in the batch, on the first turn.
    let first = &turns[0].1;
    store
        .record_step(&step(first, "asks", &["call_0"], false))
        .await
        .unwrap();

    let held = store.writer().hold();
    let mut tasks = tokio::task::JoinSet::new();
    for (i, (_, turn)) in turns.iter().enumerate() {
        let (store, s) = (
            store.clone(),
            step(turn, &format!("answer {i}"), &["a", "b"], i % 2 == 0),
        );
        tasks.spawn(async move { (i, store.record_step(&s).await) });
    }
    let result_store = store.clone();
    let result_turn = first.id;
    let result = tokio::spawn(async move {
        result_store
            .complete_tool_call(
                result_turn,
                "call_0",
                &ToolCallCompletion {
                    result: "done".into(),
                    status: ToolCallStatus::Ok,
                    token_count: 3,
                },
            )
            .await
    });
    queued(&store, 7).await;
    drop(held);

    while let Some(joined) = tasks.join_next().await {
        let (i, recorded) = joined.unwrap();
        let recorded = recorded.unwrap();
        // Turn 0 had a step already (think 3, message 4, call 5).
        let base = if i == 0 { 5 } else { 2 };
        assert_eq!(
            seqs(&recorded.rows),
            (base + 1..=base + 4).collect::<Vec<_>>(),
            "turn {i}"
        );
        assert_eq!(recorded.turn.is_some(), i % 2 == 0, "turn {i}");
        let (c, turn) = &turns[i];
        let stored = store.rows_after(c.id, 0).await.unwrap();
        assert_eq!(
            seqs(&stored),
            (2..=base + 4).collect::<Vec<_>>(),
            "turn {i}"
        );
        let ended = store.get_turn(turn.id).await.unwrap().unwrap();
        let expected = if i % 2 == 0 {
            TurnStatus::Completed
        } else {
            TurnStatus::Running
        };
        assert_eq!(ended.status, expected, "turn {i}");
    }
    assert_eq!(store.writer().jobs_run_together(), 7);
    let completed = result.await.unwrap().unwrap();
    assert_eq!(
        (completed.seq, completed.result.as_deref()),
        (5, Some("done"))
    );
}

#[tokio::test]
async fn two_steps_of_one_conversation_in_a_batch_take_consecutive_seqs() {
    let (_dir, store) = store().await;
    let (c, turn) = running(&store).await;
    let held = store.writer().hold();
    let one = tokio::spawn({
        let (store, s) = (store.clone(), step(&turn, "one", &["x"], false));
        async move { store.record_step(&s).await }
    });
    queued(&store, 1).await;
    let two = tokio::spawn({
        let (store, s) = (store.clone(), step(&turn, "two", &["y", "z"], false));
        async move { store.record_step(&s).await }
    });
    queued(&store, 2).await;
    drop(held);
    let one = one.await.unwrap().unwrap();
    let two = two.await.unwrap().unwrap();
    assert_eq!(seqs(&one.rows), [3, 4, 5]);
    assert_eq!(seqs(&two.rows), [6, 7, 8, 9]);
    assert_eq!(store.writer().jobs_run_together(), 2);
    assert_eq!(
        seqs(&store.rows_after(c.id, 0).await.unwrap()),
        (2..=9).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_failing_job_fails_alone_and_the_others_are_stored_once() {
    let (_dir, store) = store().await;
    let (c1, t1) = running(&store).await;
    let (c2, t2) = running(&store).await;
    store
        .record_step(&step(&t1, "first", &["taken"], false))
        .await
        .unwrap();
    let held = store.writer().hold();
    let good = tokio::spawn({
        let (store, s) = (store.clone(), step(&t2, "fine", &["free"], true));
        async move { store.record_step(&s).await }
    });
    queued(&store, 1).await;
    let clash = tokio::spawn({
        let (store, s) = (store.clone(), step(&t1, "again", &["taken"], false));
        async move { store.record_step(&s).await }
    });
    queued(&store, 2).await;
    drop(held);
    let good = good.await.unwrap().unwrap();
    assert_eq!(seqs(&good.rows), [3, 4, 5]);
    let clash = clash.await.unwrap().unwrap_err();
    assert!(matches!(clash, RepositoryError::Conflict(_)), "{clash}");
    // Both ran in one transaction; the clash was rolled back to its savepoint.
    assert_eq!(store.writer().jobs_run_together(), 2);
    assert_eq!(
        seqs(&store.rows_after(c2.id, 0).await.unwrap()),
        [2, 3, 4, 5]
    );
    // Nothing of the refused step was stored; the conversation goes on at seq 6.
    assert_eq!(
        seqs(&store.rows_after(c1.id, 0).await.unwrap()),
        [2, 3, 4, 5]
    );
    let next = store
        .record_step(&step(&t1, "later", &[], false))
        .await
        .unwrap();
    assert_eq!(seqs(&next.rows), [6, 7]);
}

#[tokio::test]
async fn queued_creates_and_renames_run_together_and_a_missing_conversation_is_not_found() {
    let (_dir, store) = store().await;
    let old = store.create_conversation("u", "old").await.unwrap();
    let held = store.writer().hold();
    let mut creates = tokio::task::JoinSet::new();
    for i in 0..3 {
        let store = store.clone();
        creates.spawn(async move { store.create_conversation("u", &format!("new {i}")).await });
    }
    let rename = tokio::spawn({
        let store = store.clone();
        async move { store.rename_conversation(old.id, "renamed").await }
    });
    let missing = tokio::spawn({
        let store = store.clone();
        async move {
            store
                .rename_conversation(smallebot_core::ids::ConversationId::new(), "nobody")
                .await
        }
    });
    queued(&store, 5).await;
    drop(held);
    let mut titles = Vec::new();
    while let Some(created) = creates.join_next().await {
        let created = created.unwrap().unwrap();
        let stored = store.get_conversation(created.id).await.unwrap().unwrap();
        titles.push(stored.title);
    }
    titles.sort();
    assert_eq!(titles, ["new 0", "new 1", "new 2"]);
    rename.await.unwrap().unwrap();
    let err = missing.await.unwrap().unwrap_err();
    assert!(matches!(err, RepositoryError::NotFound { .. }), "{err}");
    assert_eq!(
        store.get_conversation(old.id).await.unwrap().unwrap().title,
        "renamed"
    );
    assert_eq!(store.writer().jobs_run_together(), 5);
}

#[tokio::test]
async fn queued_turn_starts_run_together_and_a_busy_conversation_is_refused_alone() {
    let (_dir, store) = store().await;
    let owner = LeaseOwner {
        pid: 1,
        host: "h".into(),
        started_at: chrono::Utc::now(),
    };
    // Two new conversations and one already named.
    let mut fresh = Vec::new();
    for title in ["New conversation", "New conversation", "Chosen"] {
        fresh.push(store.create_conversation("u", title).await.unwrap());
    }
    // One with a finished turn (seqs 1 and 2; its placeholder title back), one whose
    // turn still runs.
    let (used, done) = running(&store).await;
    store
        .record_step(&step(&done, "answer", &[], true))
        .await
        .unwrap();
    store
        .rename_conversation(used.id, "New conversation")
        .await
        .unwrap();
    let (busy, still_running) = running(&store).await;

    let held = store.writer().hold();
    let mut starts = tokio::task::JoinSet::new();
    let targets: Vec<_> = fresh.iter().chain([&used, &busy]).map(|c| c.id).collect();
    for (i, id) in targets.iter().copied().enumerate() {
        let (store, owner) = (store.clone(), owner.clone());
        starts.spawn(async move {
            let text = format!("question {i}");
            let title = FirstTurnTitle {
                untitled: "New conversation",
                title: &text,
            };
            let started = store
                .start_turn_in_context(&NewTurn {
                    thinking_mode: i == 0,
                    token_count: 5,
                    title: Some(title),
                    ..NewTurn::new(id, &text, &owner)
                })
                .await;
            (i, started)
        });
    }
    queued(&store, targets.len()).await;
    drop(held);

    while let Some(joined) = starts.join_next().await {
        let (i, started) = joined.unwrap();
        if i == 4 {
            let err = started.unwrap_err();
            assert!(
                matches!(&err, RepositoryError::TurnRunning(t) if t.id == still_running.id),
                "{err}"
            );
            continue;
        }
        let StartedTurn {
            turn,
            message,
            titled,
            ..
        } = started.unwrap();
        // Only the first turns of the still untitled conversations take their title.
        assert_eq!(titled, i < 2, "start {i}");
        let title = store
            .get_conversation(targets[i])
            .await
            .unwrap()
            .unwrap()
            .title;
        let expected = match i {
            0 | 1 => format!("question {i}"),
            2 => "Chosen".to_owned(),
            _ => "New conversation".to_owned(),
        };
        assert_eq!(title, expected, "start {i}");
        // A fresh conversation starts at 1; the used one goes on after its answer (4).
        let base = if i == 3 { 4 } else { 0 };
        assert_eq!((turn.seq, message.seq), (base + 1, base + 2), "start {i}");
        assert_eq!(turn.thinking_mode, i == 0);
        let stored = store.get_turn(turn.id).await.unwrap().unwrap();
        assert_eq!(stored.status, TurnStatus::Running);
        assert_eq!(stored.lease.unwrap().owner.pid, 1);
        let rows = store.rows_after(targets[i], base).await.unwrap();
        assert_eq!(seqs(&rows), [base + 2], "start {i}");
        let HistoryRow::Message(m) = &rows[0] else {
            panic!("not a message: {rows:?}")
        };
        assert_eq!(
            (m.content.as_str(), m.role),
            (&*format!("question {i}"), Role::User)
        );
    }
    // The refused start stored nothing: the busy conversation still ends at its question.
    assert_eq!(seqs(&store.rows_after(busy.id, 0).await.unwrap()), [2]);
    assert_eq!(store.writer().jobs_run_together(), 5);
}
