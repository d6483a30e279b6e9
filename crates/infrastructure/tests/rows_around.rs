//! `HistoryRepository::rows_around`: the messages and tool calls nearest to a `seq`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use smallebot_core::entities::{HistoryRow, NewThinkBlock};
use smallebot_core::repository::HistoryRepository;
use smallebot_core::test_support::RowFixtures;

#[tokio::test]
async fn nearest_rows_skip_think_blocks_and_respect_the_bounds() {
    let f = fixture().await;
    let c = conversation(&f.store, "alice").await;
    let t1 = user_turn(&f.store, &c, "one").await; // turn 1, message 2
    f.store
        .append_think_block(&NewThinkBlock {
            conversation_id: c.id,
            turn_id: t1.id,
            content: "hmm".into(),
        })
        .await
        .unwrap(); // 3
    tool(&f.store, &c, &t1, "c1", "{}", "out").await; // 4
    assistant(&f.store, &c, &t1, "two").await; // 5
    user_turn(&f.store, &c, "three").await; // turn 6, message 7
    assistant(&f.store, &c, &t1, "four").await; // 8

    let seqs = |rows: Vec<HistoryRow>| rows.iter().map(HistoryRow::seq).collect::<Vec<_>>();
    let around = |seq, before, after| f.store.rows_around(c.id, seq, before, after);
    assert_eq!(seqs(around(4, 1, 1).await.unwrap()), [2, 4, 5]);
    assert_eq!(seqs(around(5, 2, 2).await.unwrap()), [2, 4, 5, 7, 8]);
    assert_eq!(seqs(around(2, 1, 1).await.unwrap()), [2, 4]);
    assert_eq!(seqs(around(8, 1, 1).await.unwrap()), [7, 8]);
    // A seq that is no message or tool call (a think block, a turn) has only neighbours.
    assert_eq!(seqs(around(3, 1, 1).await.unwrap()), [2, 4]);
    assert_eq!(seqs(around(6, 0, 0).await.unwrap()), Vec::<i64>::new());
    assert_eq!(seqs(around(5, 0, 0).await.unwrap()), [5]);
    assert!(matches!(
        &around(4, 0, 0).await.unwrap()[..],
        [HistoryRow::ToolCall(call)] if call.result.as_deref() == Some("out")
    ));
    assert!(around(4, 9, 9).await.unwrap().len() == 5);
}
