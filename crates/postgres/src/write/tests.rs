//! The writer's batches, against a throwaway cluster: several turns' steps in one
//! statement, and a failing job that fails alone.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, LeaseOwner, NewStep, NewTurn, StartedTurn, StepToolCall, ToolCallCompletion,
    ToolCallStatus, Turn,
};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};
use smallebot_testkit::postgres::TestCluster;
use tokio::sync::oneshot;

use super::link::Link;
use super::{CompleteCall, Job, batches, calls, steps, write_all};
use crate::PgStore;
use crate::history::cache::RowsCache;
use crate::prepared_step::prepare;

fn owner() -> LeaseOwner {
    LeaseOwner {
        pid: 1,
        host: "test".into(),
        started_at: chrono::Utc::now(),
    }
}

fn step(turn: &Turn, call_ids: &[&str]) -> NewStep {
    NewStep {
        conversation_id: turn.conversation_id,
        turn_id: turn.id,
        reasoning: None,
        message: None,
        tool_calls: call_ids
            .iter()
            .map(|id| StepToolCall {
                call_id: (*id).to_owned(),
                tool_name: "GetCurrentTime".into(),
                arguments: "{}".into(),
                token_count: 1,
            })
            .collect(),
        end: None,
    }
}

/// A store with `n` conversations, each with a running turn (seq 1, its message 2).
async fn running(cluster: &TestCluster, n: usize) -> (PgStore, Vec<Turn>) {
    let store = PgStore::connect(&cluster.create_database().unwrap())
        .await
        .unwrap();
    let mut turns = Vec::new();
    for i in 0..n {
        let c = store
            .create_conversation("me", &format!("c{i}"))
            .await
            .unwrap();
        let StartedTurn { turn, .. } = store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                ..NewTurn::new(c.id, "go", &owner())
            })
            .await
            .unwrap();
        turns.push(turn);
    }
    (store, turns)
}

fn call_seqs(rows: &[HistoryRow]) -> Vec<(String, i64)> {
    rows.iter()
        .filter_map(|row| match row {
            HistoryRow::ToolCall(c) => Some((c.call_id.clone(), c.seq)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_steps_of_several_turns_are_stored_by_one_statement() {
    let Some(cluster) = TestCluster::start("steps_of_several_turns_in_one_statement") else {
        return;
    };
    let (store, turns) = running(&cluster, 3).await;
    let prepared: Vec<_> = turns
        .iter()
        .enumerate()
        .map(|(i, t)| prepare(&step(t, &[&format!("a{i}"), &format!("b{i}")])))
        .collect();
    let mut link = Link::new(store.pool().clone(), RowsCache::default());
    let answers = steps::record(&mut link, &prepared)
        .await
        .map_err(|_| "the batched statement failed")
        .unwrap();
    for (turn, answer) in turns.iter().zip(answers) {
        assert_eq!(answer.unwrap().base, 2, "after the turn and its message");
        let rows = store.rows_after(turn.conversation_id, 0).await.unwrap();
        assert_eq!(call_seqs(&rows).len(), 2);
        assert_eq!(call_seqs(&rows)[1].1, 4);
    }
    // Their results, in one UPDATE too; an unknown call has no row.
    let completions: Vec<CompleteCall> = ["a0", "b1", "nope"]
        .into_iter()
        .zip([&turns[0], &turns[1], &turns[2]])
        .map(|(call, turn)| CompleteCall {
            turn_id: turn.id,
            call_id: call.into(),
            result: format!("result of {call}"),
            status: ToolCallStatus::Ok,
            token_count: 3,
        })
        .collect();
    let answers = calls::complete(&mut link, &completions).await.unwrap();
    let [a0, b1, nope] = <[_; 3]>::try_from(answers).unwrap();
    assert_eq!(a0.unwrap().result.as_deref(), Some("result of a0"));
    assert_eq!(b1.unwrap().seq, 4);
    assert!(
        matches!(nope, Err(RepositoryError::NotFound { .. })),
        "{nope:?}"
    );
    link.close().await;
    store.close().await;
}

#[tokio::test]
async fn a_failing_job_fails_alone_leaves_nothing_and_the_others_of_its_drain_are_stored() {
    let Some(cluster) = TestCluster::start("a_failing_job_fails_alone") else {
        return;
    };
    let (store, turns) = running(&cluster, 3).await;
    // The second turn already used the call id "dup".
    store.record_step(&step(&turns[1], &["dup"])).await.unwrap();
    let drained = [
        step(&turns[0], &["x"]),
        step(&turns[1], &["y", "dup"]),
        step(&turns[2], &["z"]),
        step(&turns[0], &["x2"]),
    ];
    let mut jobs = Vec::new();
    let mut answers = Vec::new();
    for s in &drained {
        let (reply, answer) = oneshot::channel();
        jobs.push(Job::RecordStep(Box::new(prepare(s)), reply));
        answers.push(answer);
    }
    let (reply, completed) = oneshot::channel();
    jobs.push(Job::CompleteCall(
        CompleteCall {
            turn_id: turns[1].id,
            call_id: "dup".into(),
            result: "done".into(),
            status: ToolCallStatus::Ok,
            token_count: 2,
        },
        reply,
    ));
    write_all(
        &mut Link::new(store.pool().clone(), RowsCache::default()),
        jobs,
    )
    .await;
    let mut got = Vec::new();
    for answer in answers {
        got.push(answer.await.unwrap());
    }
    let [x, dup, z, x2] = <[_; 4]>::try_from(got).unwrap();
    assert!(
        matches!(dup, Err(RepositoryError::Conflict(_))),
        "the repeated call id is refused: {dup:?}"
    );
    let (x, z, x2) = (x.unwrap(), z.unwrap(), x2.unwrap());
    assert_eq!(x.rows[0].seq(), 3);
    assert_eq!(z.rows[0].seq(), 3);
    assert_eq!(
        x2.rows[0].seq(),
        4,
        "a conversation's steps keep their order"
    );
    assert_eq!(completed.await.unwrap().unwrap().status, ToolCallStatus::Ok);

    // Nothing of the failed step: no "y", and the next step takes the next seq.
    let after = store.record_step(&step(&turns[1], &["w"])).await.unwrap();
    assert_eq!(after.rows[0].seq(), 4);
    let rows = store.rows_after(turns[1].conversation_id, 0).await.unwrap();
    assert_eq!(
        call_seqs(&rows),
        [("dup".to_owned(), 3), ("w".to_owned(), 4)]
    );
    let completion = ToolCallCompletion {
        result: "late".into(),
        status: ToolCallStatus::Ok,
        token_count: 1,
    };
    assert!(matches!(
        store
            .complete_tool_call(turns[1].id, "y", &completion)
            .await,
        Err(RepositoryError::NotFound { .. })
    ));
    store.close().await;
}

#[test]
fn a_batch_never_holds_a_key_twice_and_each_key_keeps_its_order() {
    /// A job: its key and its number among that key's jobs.
    type Keyed = (char, u32);
    let cases: [(&[Keyed], &[&[Keyed]]); 4] = [
        (&[], &[]),
        (&[('a', 1), ('b', 1)], &[&[('a', 1), ('b', 1)]]),
        (
            &[('a', 1), ('a', 2), ('b', 1)],
            &[&[('a', 1), ('b', 1)], &[('a', 2)]],
        ),
        (
            &[('a', 1), ('b', 1), ('a', 2), ('c', 1), ('a', 3), ('b', 2)],
            &[
                &[('a', 1), ('b', 1), ('c', 1)],
                &[('a', 2), ('b', 2)],
                &[('a', 3)],
            ],
        ),
    ];
    for (jobs, expected) in cases {
        let got = batches(jobs.to_vec(), |(key, _)| *key);
        let expected: Vec<Vec<Keyed>> = expected.iter().map(|b| b.to_vec()).collect();
        assert_eq!(got, expected, "{jobs:?}");
    }
}
