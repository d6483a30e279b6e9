//! The store's one write path: a failed write leaves nothing of itself and does not
//! hold the write lock; a closed store refuses writes as unavailable.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{NewMessage, NewToolCall, Role};
use smallebot_core::repository::ConversationRepository;
use smallebot_core::test_support::RowFixtures;
use smallebot_infrastructure::SqliteStore;

/// Takes and releases the write lock from a pool connection: fails (after the busy
/// timeout) while a transaction is left open on the write connection.
async fn write_lock_is_free(store: &SqliteStore) {
    let mut conn = store.pool().acquire().await.unwrap();
    sqlx::raw_sql("BEGIN IMMEDIATE; COMMIT")
        .execute(&mut *conn)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_failed_append_changes_nothing_and_frees_the_connection() {
    let f = common::fixture().await;
    let store = f.store.clone();
    let c = common::conversation(&store, "u").await;
    let turn = store.start_turn(c.id, false).await.unwrap();
    let call = NewToolCall {
        conversation_id: c.id,
        turn_id: turn.id,
        call_id: "same".into(),
        tool_name: "T".into(),
        arguments: "{}".into(),
        token_count: 1,
    };
    let first = store.append_tool_call(&call).await.unwrap();
    let again = store.append_tool_call(&call).await.unwrap_err();
    assert!(matches!(again, RepositoryError::Conflict(_)), "{again}");
    write_lock_is_free(&store).await;
    // The failed append's seq was rolled back with it.
    let next = store
        .append_message(&NewMessage {
            conversation_id: c.id,
            turn_id: turn.id,
            role: Role::Assistant,
            content: "after".into(),
            token_count: 1,
        })
        .await
        .unwrap();
    assert_eq!(next.seq, first.seq + 1);
    let missing = store
        .append_message(&NewMessage {
            conversation_id: smallebot_core::ids::ConversationId::new(),
            turn_id: turn.id,
            role: Role::Assistant,
            content: "nowhere".into(),
            token_count: 1,
        })
        .await
        .unwrap_err();
    assert!(
        matches!(missing, RepositoryError::NotFound { .. }),
        "{missing}"
    );
}

#[tokio::test]
async fn a_closed_store_refuses_writes_as_unavailable() {
    let f = common::fixture().await;
    let store = f.store.clone();
    store.close().await;
    let err = store.create_conversation("u", "t").await.unwrap_err();
    assert!(matches!(err, RepositoryError::Unavailable { .. }), "{err}");
}
