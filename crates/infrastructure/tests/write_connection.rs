//! Every write of a store runs on its one write connection, never on a pool
//! connection: with the whole read pool taken, every kind of write still completes.
//! (A write on a pool connection would also contend with the write connection for
//! SQLite's lock and wait in SQLite's sleeping busy handler instead of queueing.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

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
