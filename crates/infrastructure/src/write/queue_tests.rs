//! Records nobody waits for are kept out of the write a turn waits for, written soon
//! after on their own, at once for a read, and never lost when the store closes.

use std::path::Path;
use std::time::Duration;

use chrono::Utc;
use smallebot_core::entities::{
    UsageAccount, UsageFilter, UsageOutcome, UsagePurpose, UsageRecord,
};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{ConversationRepository, UsageRepository};

use crate::database::SqliteStore;

fn record(conversation: ConversationId) -> UsageRecord {
    UsageRecord {
        account: UsageAccount {
            user_name: "ann".to_owned(),
            conversation_id: conversation,
            turn_id: None,
            sub_conversation_id: None,
            step: 1,
        },
        purpose: UsagePurpose::Chat,
        model: "m".to_owned(),
        tokens: None,
        cost: None,
        currency: None,
        first_token_ms: None,
        duration_ms: 5,
        retries: 0,
        outcome: UsageOutcome::Ok,
        at: Utc::now(),
    }
}

/// The usage rows committed to the database file, as another connection sees them.
fn committed_rows(path: &Path) -> i64 {
    rusqlite::Connection::open(path)
        .unwrap()
        .query_row("SELECT COUNT(*) FROM model_requests", [], |row| row.get(0))
        .unwrap()
}

async fn store() -> (tempfile::TempDir, SqliteStore, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    let store = SqliteStore::open(&path).await.unwrap();
    (dir, store, path)
}

#[tokio::test]
async fn a_usage_record_stays_out_of_the_next_write() {
    let (_dir, store, path) = store().await;
    let conversation = store.create_conversation("ann", "a").await.unwrap();
    store.writer().defer_for(Duration::from_secs(3600));
    store.record_usage(record(conversation.id));
    assert_eq!(store.writer().deferred(), 1);
    // The write a turn waits for commits without it.
    store.create_conversation("ann", "b").await.unwrap();
    assert_eq!(committed_rows(&path), 0);
    assert_eq!(store.writer().deferred(), 1);
}

#[tokio::test]
async fn a_usage_record_kept_back_is_written_on_its_own() {
    let (_dir, store, path) = store().await;
    let conversation = store.create_conversation("ann", "a").await.unwrap();
    store.record_usage(record(conversation.id));
    for _ in 0..400 {
        if committed_rows(&path) == 1 {
            assert_eq!(store.writer().deferred(), 0);
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the usage record was never written");
}

#[tokio::test]
async fn a_read_of_usage_sees_a_record_kept_back() {
    let (_dir, store, _path) = store().await;
    let conversation = store.create_conversation("ann", "a").await.unwrap();
    store.record_usage(record(conversation.id));
    let records = store.usage_records(&UsageFilter::default()).await.unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].account.conversation_id, conversation.id);
}

#[tokio::test]
async fn closing_the_store_writes_the_records_kept_back() {
    let (_dir, store, path) = store().await;
    let conversation = store.create_conversation("ann", "a").await.unwrap();
    store.record_usage(record(conversation.id));
    store.record_usage(record(conversation.id));
    store.close().await;
    assert_eq!(committed_rows(&path), 2);
}
