//! Provisional token counts: the mark keeps its lowest `seq`, exact counts replace
//! stored ones with the running total following, and the mark clears or moves on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use smallebot_core::entities::HistoryRow;
use smallebot_core::repository::{ConversationRepository, HistoryRepository};

#[tokio::test]
async fn the_mark_keeps_the_lowest_seq() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    assert_eq!(c.provisional_counts_from, None);
    f.store.mark_counts_provisional(c.id, 5).await.unwrap();
    f.store.mark_counts_provisional(c.id, 9).await.unwrap();
    let read = f.store.get_conversation(c.id).await.unwrap().unwrap();
    assert_eq!(read.provisional_counts_from, Some(5));
    f.store.mark_counts_provisional(c.id, 2).await.unwrap();
    let read = f.store.get_conversation(c.id).await.unwrap().unwrap();
    assert_eq!(read.provisional_counts_from, Some(2));
}

#[tokio::test]
async fn marking_an_unknown_conversation_is_not_found() {
    let f = fixture().await;
    let missing = smallebot_core::ids::ConversationId::new();
    let error = f
        .store
        .mark_counts_provisional(missing, 1)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("not found"), "{error}");
}

#[tokio::test]
async fn exact_counts_replace_stored_ones_and_the_total_follows() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    let turn = user_turn(&f.store, &c, "hello").await; // message: 3 tokens
    assistant(&f.store, &c, &turn, "hi").await; // 5 tokens
    tool(&f.store, &c, &turn, "c1", "{}", "out").await; // 11 tokens
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let seqs: Vec<i64> = rows.iter().map(HistoryRow::seq).collect();
    let before = f.store.get_conversation(c.id).await.unwrap().unwrap();
    assert_eq!(before.context_tokens, 3 + 5 + 11);
    f.store
        .mark_counts_provisional(c.id, seqs[0])
        .await
        .unwrap();

    let last = *seqs.last().unwrap();
    f.store
        .set_exact_counts(c.id, &[(seqs[0], 2), (seqs[2], 4)], last)
        .await
        .unwrap();
    let after = f.store.get_conversation(c.id).await.unwrap().unwrap();
    assert_eq!(after.context_tokens, 2 + 5 + 4);
    assert_eq!(
        after.provisional_counts_from, None,
        "every row was recounted"
    );
    let counts: Vec<i64> = f
        .store
        .rows_after(c.id, 0)
        .await
        .unwrap()
        .iter()
        .map(HistoryRow::token_count)
        .collect();
    assert_eq!(counts, [2, 5, 4]);
    assert_eq!(
        after.context_tokens,
        f.store.token_sum_after(c.id, 0).await.unwrap()
    );
}

#[tokio::test]
async fn rows_written_after_the_recount_keep_the_mark_after_them() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    let first = user_turn(&f.store, &c, "one").await;
    let seen = f.store.rows_after(c.id, 0).await.unwrap();
    let through = seen.last().unwrap().seq();
    f.store
        .mark_counts_provisional(c.id, first.seq)
        .await
        .unwrap();
    // Another process writes a turn between the read and the recount.
    user_turn(&f.store, &c, "two").await;
    f.store.set_exact_counts(c.id, &[], through).await.unwrap();
    let read = f.store.get_conversation(c.id).await.unwrap().unwrap();
    assert_eq!(read.provisional_counts_from, Some(through + 1));
}

#[tokio::test]
async fn a_recount_without_a_mark_leaves_none() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    user_turn(&f.store, &c, "one").await;
    f.store.set_exact_counts(c.id, &[], 0).await.unwrap();
    let read = f.store.get_conversation(c.id).await.unwrap().unwrap();
    assert_eq!(read.provisional_counts_from, None);
}
