//! Connections the server dropped: one idle for a while is pinged and replaced before
//! use, so the caller never sees it; during an outage writes fail within seconds however
//! many are queued, and work again once the server is back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{LeaseOwner, NewTurn, StartedTurn};
use smallebot_core::repository::{ConversationRepository, TurnRepository};
use smallebot_postgres::PgStore;
use smallebot_testkit::postgres::TestCluster;
use sqlx::Connection as _;

#[tokio::test]
async fn a_dropped_connection_that_sat_idle_is_replaced_before_use() {
    let Some(cluster) = TestCluster::start("a_dropped_connection_is_replaced") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let store = PgStore::connect(&url).await.unwrap();
    let conversation = store.create_conversation("me", "kept").await.unwrap();

    // The server drops every connection of the store (as a restart would).
    let mut admin = sqlx::PgConnection::connect(&url).await.unwrap();
    let dropped: Vec<bool> = sqlx::query_scalar(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = current_database() AND pid <> pg_backend_pid()",
    )
    .fetch_all(&mut admin)
    .await
    .unwrap();
    assert!(!dropped.is_empty(), "the store held no connection to drop");

    // Idle past the ping threshold: the dead connection is found out and replaced.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let read = store.get_conversation(conversation.id).await.unwrap();
    assert_eq!(read.map(|c| c.title), Some("kept".to_owned()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn during_an_outage_queued_writes_fail_within_one_acquire_timeout_then_work_again() {
    let Some(cluster) = TestCluster::start("queued_writes_fail_within_one_timeout") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let store = PgStore::connect(&url).await.unwrap();
    let conversation = store.create_conversation("me", "kept").await.unwrap();
    let owner = LeaseOwner {
        pid: 1,
        host: "test".into(),
        started_at: chrono::Utc::now(),
    };
    let StartedTurn { turn, .. } = store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(conversation.id, "go", &owner)
        })
        .await
        .unwrap();

    cluster.stop_server().unwrap();
    let started = std::time::Instant::now();
    let writes: Vec<_> = (0..4)
        .map(|_| {
            let store = store.clone();
            tokio::spawn(async move { store.heartbeat(turn.id, chrono::Utc::now()).await })
        })
        .collect();
    for write in writes {
        let failed = write.await.unwrap();
        assert!(
            matches!(failed, Err(RepositoryError::Unavailable { .. })),
            "{failed:?}"
        );
    }
    // One acquire timeout (5 s), not one per queued write.
    let took = started.elapsed();
    assert!(took < Duration::from_secs(8), "took {took:?}");

    cluster.start_server().unwrap();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert!(store.heartbeat(turn.id, chrono::Utc::now()).await.unwrap());
    store.close().await;
}
