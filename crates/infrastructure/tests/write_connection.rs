//! Every write of a store runs on its one write connection, never on a pool
//! connection: with the whole read pool taken, every kind of write still completes.
//! (A write on a pool connection would also contend with the write connection for
//! SQLite's lock and wait in SQLite's sleeping busy handler instead of queueing.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use smallebot_core::test_support::RowFixtures;
use std::time::Duration;

use smallebot_core::repository::{ConversationRepository, TurnRepository};

#[tokio::test]
async fn writes_need_no_pool_connection() {
    let f = common::fixture().await;
    let pool = f.store.pool();
    let max = pool.options().get_max_connections();
    let mut held = Vec::new();
    for _ in 0..max {
        held.push(pool.acquire().await.unwrap());
    }
    let writes = async {
        let c = common::conversation(&f.store, "alice").await;
        f.store.rename_conversation(c.id, "Renamed").await.unwrap();
        f.store
            .set_conversation_model(c.id, Some("fast"))
            .await
            .unwrap();
        let turn = f.store.start_turn(c.id, false).await.unwrap();
        assert!(
            f.store
                .heartbeat(turn.id, chrono::Utc::now())
                .await
                .unwrap()
        );
        assert!(f.store.interrupt_turn(turn.id).await.unwrap());
        assert!(f.store.delete_conversation(c.id).await.unwrap());
    };
    tokio::time::timeout(Duration::from_secs(20), writes)
        .await
        .expect("a write waited for a pool connection");
    drop(held);
}

/// Another process holding SQLite's write lock: the store's writes wait for it (up to
/// the busy timeout) without holding up the async thread they were called on, and
/// complete once it is released. On a one-thread runtime, a write that blocked its
/// thread would also keep the other process from ever committing.
#[tokio::test(flavor = "current_thread")]
async fn writes_wait_for_another_process_lock_off_the_async_thread() {
    use smallebot_core::entities::{NewStep, NewTurn, StartedTurn, TurnEnd, TurnStatus};
    use sqlx::Connection as _;

    let f = common::fixture().await;
    let c = common::conversation(&f.store, "alice").await;
    let running = f.store.start_turn(c.id, false).await.unwrap();
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(f.store.path());
    let mut other = sqlx::SqliteConnection::connect_with(&options)
        .await
        .unwrap();
    sqlx::raw_sql("BEGIN IMMEDIATE")
        .execute(&mut other)
        .await
        .unwrap();

    let store = f.store.clone();
    let writes = tokio::spawn(async move {
        store.rename_conversation(c.id, "Renamed").await.unwrap();
        let step = NewStep {
            conversation_id: c.id,
            turn_id: running.id,
            reasoning: None,
            message: None,
            tool_calls: Vec::new(),
            end: Some(TurnEnd {
                status: TurnStatus::Completed,
                error: None,
                cut: None,
            }),
        };
        store.record_step(&step).await.unwrap();
        store
            .start_turn_in_context(&NewTurn {
                token_count: 1,
                ..NewTurn::new(c.id, "next", &common::owner())
            })
            .await
            .unwrap()
    });
    // The runtime's one thread stays free while the writes wait: a short sleep ends
    // long before the 30 s busy timeout would.
    let slept = std::time::Instant::now();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        slept.elapsed() < Duration::from_secs(10),
        "the async thread was held for {:?}",
        slept.elapsed()
    );
    assert!(!writes.is_finished(), "the writes waited for the lock");
    sqlx::raw_sql("COMMIT").execute(&mut other).await.unwrap();
    let StartedTurn { turn, message, .. } = tokio::time::timeout(Duration::from_secs(20), writes)
        .await
        .expect("the writes completed once the lock was free")
        .unwrap();
    assert_eq!(message.content, "next");
    assert_eq!(message.seq, turn.seq + 1);
    let read = f.store.get_conversation(c.id).await.unwrap().unwrap();
    assert_eq!(read.title, "Renamed");
    let ended = f.store.get_turn(running.id).await.unwrap().unwrap();
    assert_eq!(ended.status, TurnStatus::Completed);
}
