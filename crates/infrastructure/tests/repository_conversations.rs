//! Conversations: cascade delete, the compression update, listing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use chrono::Utc;
use common::*;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{CompressionUpdate, NewThinkBlock, SearchQuery, SearchScope};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, SearchRepository};
use smallebot_core::test_support::RowFixtures;

#[tokio::test]
async fn deleting_a_conversation_removes_every_child_and_its_index_rows() {
    let f = fixture().await;
    let keep = conversation(&f.store, "alice").await;
    let t = user_turn(&f.store, &keep, "keep me").await;
    assistant(&f.store, &keep, &t, "kept").await;

    let c = conversation(&f.store, "alice").await;
    let turn = user_turn(&f.store, &c, "zebra question").await;
    assistant(&f.store, &c, &turn, "zebra answer").await;
    tool(
        &f.store,
        &c,
        &turn,
        "c1",
        r#"{"command":"ls zebra"}"#,
        "zebra.txt",
    )
    .await;
    f.store
        .append_think_block(&NewThinkBlock {
            conversation_id: c.id,
            turn_id: turn.id,
            content: "hmm".into(),
        })
        .await
        .unwrap();
    // A search indexes everything pending, so the deletion has index entries to remove.
    let found = f
        .store
        .search(&SearchQuery {
            text: "zebra".into(),
            scope: SearchScope::All,
            since: None,
            limit: 10,
        })
        .await
        .unwrap();
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(f.store.delete_conversation(c.id).await.unwrap());
    assert!(!f.store.delete_conversation(c.id).await.unwrap());
    assert!(f.store.get_conversation(c.id).await.unwrap().is_none());
    for sql in [
        "SELECT COUNT(*) FROM turns WHERE conversation_id NOT IN (SELECT id FROM conversations)",
        "SELECT COUNT(*) FROM messages WHERE conversation_id NOT IN (SELECT id FROM conversations)",
        "SELECT COUNT(*) FROM tool_calls WHERE conversation_id NOT IN (SELECT id FROM conversations)",
        "SELECT COUNT(*) FROM think_blocks WHERE conversation_id NOT IN (SELECT id FROM conversations)",
        "SELECT COUNT(*) FROM search_rows WHERE conversation_id NOT IN (SELECT id FROM conversations)",
        "SELECT COUNT(*) FROM search_fts WHERE search_fts MATCH 'zebra'",
    ] {
        assert_eq!(count(&f.store, sql).await, 0, "{sql}");
    }
    // The other conversation is untouched: 2 messages, 2 index rows.
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM messages").await, 2);
    assert_eq!(count(&f.store, "SELECT COUNT(*) FROM search_fts").await, 2);
}

#[tokio::test]
async fn compression_update_is_all_or_nothing() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t1 = user_turn(&f.store, &c, "first").await;
    assistant(&f.store, &c, &t1, "one").await;
    let t2 = user_turn(&f.store, &c, "second").await;
    assistant(&f.store, &c, &t2, "two").await;
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let boundary = rows[1].seq();
    let update = |through, expected| CompressionUpdate {
        compressed_context: "summary".into(),
        compressed_at: Utc::now(),
        compressed_through_seq: through,
        expected_previous_seq: expected,
    };
    let before = f.store.get_conversation(c.id).await.unwrap().unwrap();

    // Refused: a seq that names no row (the turn's own seq), wrong expectation.
    let turn_seq = t2.seq;
    for bad in [
        update(turn_seq, None),
        update(9999, None),
        update(boundary, Some(1)),
    ] {
        let err = f.store.set_compression(c.id, &bad).await.unwrap_err();
        assert!(matches!(err, RepositoryError::Conflict(_)), "{err}");
        assert_eq!(
            f.store.get_conversation(c.id).await.unwrap().unwrap(),
            before
        );
    }

    let after = f
        .store
        .set_compression(c.id, &update(boundary, None))
        .await
        .unwrap();
    assert_eq!(after.compressed_context.as_deref(), Some("summary"));
    assert_eq!(after.compressed_through_seq, Some(boundary));
    assert!(after.compressed_at.is_some());

    // Backwards or stale: refused, unchanged.
    for bad in [
        update(boundary, Some(boundary)),
        update(rows[3].seq(), None),
    ] {
        assert!(f.store.set_compression(c.id, &bad).await.is_err());
        assert_eq!(
            f.store.get_conversation(c.id).await.unwrap().unwrap(),
            after
        );
    }
    // Rows stay: nothing is deleted by compression.
    assert_eq!(f.store.rows_after(c.id, 0).await.unwrap().len(), 4);
}

#[tokio::test]
async fn list_is_per_user_and_newest_first() {
    let f = fixture().await;
    let a1 = conversation(&f.store, "alice").await;
    let b1 = conversation(&f.store, "bob").await;
    let a2 = conversation(&f.store, "alice").await;
    let alice: Vec<_> = f
        .store
        .list_conversations(Some("alice"))
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(alice, [a2.id, a1.id]);
    // Activity moves a conversation to the top. Times are stored to the millisecond and
    // ties go to the newer id, so the bump must happen in a later millisecond than the
    // creation of `a2` (on a fast machine all three can share one).
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    user_turn(&f.store, &a1, "bump").await;
    let all: Vec<_> = f
        .store
        .list_conversations(None)
        .await
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(all[0], a1.id);
    assert_eq!(all.len(), 3);
    assert!(all.contains(&b1.id));
}
