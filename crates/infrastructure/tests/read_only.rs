//! Opening a database read-only: what is stored can be listed, read and searched
//! (rows not indexed yet included), writes fail cleanly, nothing changes; a missing
//! or outdated database is refused with what to do.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use smallebot_core::entities::{SearchQuery, SearchScope};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, SearchRepository};
use smallebot_infrastructure::{SqliteStore, StoreError, migrate_database_to};

#[tokio::test]
async fn a_read_only_store_reads_and_searches_everything_and_writes_nothing() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    let turn = user_turn(&f.store, &c, "where do narwhals live").await;
    assistant(&f.store, &c, &turn, "Narwhals live in the Arctic").await;
    let path = f.store.path().to_path_buf();
    f.store.close().await;
    let before = std::fs::read(&path).unwrap();

    let store = SqliteStore::open_read_only(&path).await.unwrap();
    assert!(store.is_read_only());
    let listed = store.list_conversations(Some("ann")).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(store.rows_after(c.id, 0).await.unwrap().len(), 2);
    // Nothing was indexed yet (no search ran, the batch is not full): found unindexed.
    let hits = store
        .search(&SearchQuery {
            text: "NARWHALS arctic".into(),
            scope: SearchScope::User("ann".into()),
            since: None,
            limit: 10,
        })
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(hits[0].text.contains("Arctic"));
    let error = store.create_conversation("ann", "new").await.unwrap_err();
    assert!(error.to_string().contains("readonly"), "{error}");
    store.close().await;
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the file is unchanged"
    );
}

#[tokio::test]
async fn a_missing_or_outdated_database_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.db");
    let error = SqliteStore::open_read_only(&missing).await.unwrap_err();
    assert!(matches!(error, StoreError::NoDatabase { .. }), "{error}");
    assert!(!missing.exists(), "nothing was created");

    let old = dir.path().join("old.db");
    migrate_database_to(&old, 8).await.unwrap();
    let error = SqliteStore::open_read_only(&old).await.unwrap_err();
    assert!(
        matches!(error, StoreError::ReadOnlyNeedsMigration { version: 9, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("smallebot migrate"), "{error}");
}
