//! Pooled connections the server dropped: one idle for a while is pinged and replaced
//! before use, so the caller never sees it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use smallebot_core::repository::ConversationRepository;
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
