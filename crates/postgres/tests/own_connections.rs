//! The store's own connections. The writer's drains run on the task of whoever finds
//! its connection free: a write whose caller stops waiting mid-drain is still written,
//! with the others' jobs that drain held, and the connection serves the next write;
//! writes sent from many tasks at once are all stored, each conversation's in the
//! order they were sent. The reads on a turn's path (a conversation, the rows of its
//! context) use the store's own read connection when it is free and a pooled one
//! otherwise: many at once all answer, a read whose caller stops waiting leaves
//! nothing broken behind, and a read after the connection sat idle still answers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use smallebot_core::entities::{
    Conversation, HistoryRow, LeaseOwner, NewStep, NewTurn, StartedTurn, StepMessage, Turn,
    TurnEnd, TurnStatus,
};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};
use smallebot_postgres::PgStore;
use smallebot_testkit::postgres::TestCluster;

fn owner() -> LeaseOwner {
    LeaseOwner {
        pid: std::process::id(),
        host: "test-host".into(),
        started_at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 3),
    }
}

/// An answer `text` in `turn`, ending it when `last`.
fn answer(c: &Conversation, turn: &Turn, text: &str, last: bool) -> NewStep {
    NewStep {
        conversation_id: c.id,
        turn_id: turn.id,
        reasoning: None,
        message: Some(StepMessage {
            content: text.to_owned(),
            token_count: 2,
        }),
        tool_calls: Vec::new(),
        end: last.then_some(TurnEnd {
            status: TurnStatus::Completed,
            error: None,
            cut: None,
        }),
    }
}

/// The texts of the conversation's messages, in `seq` order.
async fn texts(store: &PgStore, c: &Conversation) -> Vec<String> {
    let rows = store.rows_after(c.id, 0).await.unwrap();
    rows.into_iter()
        .filter_map(|row| match row {
            HistoryRow::Message(m) => Some(m.content),
            _ => None,
        })
        .collect()
}

/// A store on a new database of a throwaway cluster (kept while the test runs);
/// `None` without PostgreSQL.
async fn store(test: &str) -> Option<(TestCluster, PgStore)> {
    let cluster = TestCluster::start(test)?;
    let url = cluster.create_database().unwrap();
    let store = PgStore::connect(&url).await.unwrap();
    Some((cluster, store))
}

/// Polls `future` once and drops it.
async fn poll_once_and_drop(future: impl Future) {
    let mut future = pin!(future);
    std::future::poll_fn(|cx| {
        let _ = future.as_mut().poll(cx);
        Poll::Ready(())
    })
    .await;
}

#[tokio::test]
async fn a_write_whose_caller_stops_waiting_is_still_written_and_the_writer_goes_on() {
    let Some((_cluster, store)) = store("a_write_whose_caller_stops_waiting").await else {
        return;
    };
    let c = store.create_conversation("me", "t").await.unwrap();
    let StartedTurn { turn, .. } = store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(c.id, "hello", &owner())
        })
        .await
        .unwrap();
    // The caller finds the connection free and starts the drain, then gives up while
    // the statement is under way.
    let step = answer(&c, &turn, "abandoned", false);
    poll_once_and_drop(store.record_step(&step)).await;
    let mut written = Vec::new();
    for _ in 0..100 {
        written = texts(&store, &c).await;
        if written.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(written, ["hello", "abandoned"]);
    // The next write goes through on the same writer, after it.
    let last = store
        .record_step(&answer(&c, &turn, "done", true))
        .await
        .unwrap();
    assert_eq!(last.turn.map(|t| t.status), Some(TurnStatus::Completed));
    assert_eq!(texts(&store, &c).await, ["hello", "abandoned", "done"]);
    store.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_sent_from_many_tasks_at_once_are_all_stored_in_their_order() {
    let Some((_cluster, store)) = store("writes_from_many_tasks_at_once").await else {
        return;
    };
    let mut tasks = Vec::new();
    for i in 0..16 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let c = store.create_conversation("me", "t").await.unwrap();
            let StartedTurn { turn, .. } = store
                .start_turn_in_context(&NewTurn {
                    token_count: 1,
                    ..NewTurn::new(c.id, "q", &owner())
                })
                .await
                .unwrap();
            for step in 0..5 {
                let text = format!("{i}.{step}");
                store
                    .record_step(&answer(&c, &turn, &text, step == 4))
                    .await
                    .unwrap();
            }
            c
        }));
    }
    for (i, task) in tasks.into_iter().enumerate() {
        let c = task.await.unwrap();
        let expected: Vec<String> = std::iter::once("q".to_owned())
            .chain((0..5).map(|step| format!("{i}.{step}")))
            .collect();
        assert_eq!(texts(&store, &c).await, expected);
    }
    store.close().await;
    // Closed: a write is refused, not lost in a queue nobody drains.
    assert!(store.create_conversation("me", "late").await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_at_once_abandoned_or_after_idling_all_answer_what_is_stored() {
    let Some((_cluster, store)) = store("reads_on_the_own_connection").await else {
        return;
    };
    let c = store.create_conversation("me", "first").await.unwrap();
    store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(c.id, "hello", &owner())
        })
        .await
        .unwrap();
    let title =
        |store: PgStore| async move { store.get_conversation(c.id).await.unwrap().unwrap().title };
    assert_eq!(title(store.clone()).await, "first");
    // Abandoned while under way: the next reads answer all the same.
    poll_once_and_drop(store.get_conversation(c.id)).await;
    poll_once_and_drop(store.context_rows_after(c.id, 0)).await;
    assert_eq!(title(store.clone()).await, "first");
    assert_eq!(store.context_rows_after(c.id, 0).await.unwrap().len(), 1);
    // Many at once: one on the own connection, the others pooled.
    let reads: Vec<_> = (0..8).map(|_| tokio::spawn(title(store.clone()))).collect();
    for read in reads {
        assert_eq!(read.await.unwrap(), "first");
    }
    // A write in between is seen; so after the connection sat idle (pinged first).
    store.rename_conversation(c.id, "second").await.unwrap();
    assert_eq!(title(store.clone()).await, "second");
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    assert_eq!(title(store.clone()).await, "second");
    store.close().await;
}
