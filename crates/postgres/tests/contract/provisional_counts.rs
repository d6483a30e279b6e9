//! Contract: provisional token counts — the mark keeps its lowest `seq` (an unknown
//! conversation is not found), exact counts replace stored ones with the running total
//! following, and the mark clears, moves after rows written meanwhile, or stays unset.
//! Runs on SQLite and PostgreSQL.

use crate::backends;

use crate::backends::{Backend, OrFail};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{Conversation, HistoryRow};
use smallebot_core::ids::ConversationId;

async fn read(b: &Backend, c: &Conversation) -> Conversation {
    let read = b.store.get_conversation(c.id).await.or_fail(b.name);
    read.or_fail(b.name)
}

#[tokio::test]
async fn the_mark_keeps_the_lowest_seq_and_needs_a_conversation() {
    for b in backends::each("the_mark_keeps_the_lowest_seq").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        assert_eq!(c.provisional_counts_from, None, "{name}");
        b.store.mark_counts_provisional(c.id, 5).await.or_fail(name);
        b.store.mark_counts_provisional(c.id, 9).await.or_fail(name);
        assert_eq!(
            read(&b, &c).await.provisional_counts_from,
            Some(5),
            "{name}"
        );
        b.store.mark_counts_provisional(c.id, 2).await.or_fail(name);
        assert_eq!(
            read(&b, &c).await.provisional_counts_from,
            Some(2),
            "{name}"
        );

        let missing = ConversationId::new();
        let error = b
            .store
            .mark_counts_provisional(missing, 1)
            .await
            .unwrap_err();
        assert!(
            matches!(error, RepositoryError::NotFound { .. }),
            "{name}: {error}"
        );
        assert!(error.to_string().contains("not found"), "{name}: {error}");
    }
}

#[tokio::test]
async fn exact_counts_replace_stored_ones_and_the_total_follows() {
    for b in backends::each("exact_counts_replace_stored_ones").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let turn = b.user_turn(&c, "hello").await; // message: 3 tokens
        b.assistant(&c, &turn, "hi").await; // 5 tokens
        b.tool(&c, &turn, "c1", "{}", "out").await; // 11 tokens
        let seqs: Vec<i64> = b.rows(&c).await.iter().map(HistoryRow::seq).collect();
        assert_eq!(read(&b, &c).await.context_tokens, 3 + 5 + 11, "{name}");
        b.store
            .mark_counts_provisional(c.id, seqs[0])
            .await
            .or_fail(name);

        let last = *seqs.last().or_fail(name);
        b.store
            .set_exact_counts(c.id, &[(seqs[0], 2), (seqs[2], 4)], last)
            .await
            .or_fail(name);
        let after = read(&b, &c).await;
        assert_eq!(after.context_tokens, 2 + 5 + 4, "{name}");
        assert_eq!(
            after.provisional_counts_from, None,
            "{name}: every row was recounted"
        );
        let counts: Vec<i64> = b
            .rows(&c)
            .await
            .iter()
            .map(HistoryRow::token_count)
            .collect();
        assert_eq!(counts, [2, 5, 4], "{name}");
        let sum = b.store.token_sum_after(c.id, 0).await.or_fail(name);
        assert_eq!(after.context_tokens, sum, "{name}");
    }
}

#[tokio::test]
async fn the_mark_moves_after_rows_written_during_the_recount_or_stays_unset() {
    for b in backends::each("the_mark_moves_after_rows_written_during_the_recount").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let first = b.user_turn(&c, "one").await;
        let through = b.rows(&c).await.last().or_fail(name).seq();
        b.store
            .mark_counts_provisional(c.id, first.seq)
            .await
            .or_fail(name);
        // Another process writes a turn between the read and the recount.
        b.user_turn(&c, "two").await;
        b.store
            .set_exact_counts(c.id, &[], through)
            .await
            .or_fail(name);
        let marked = read(&b, &c).await.provisional_counts_from;
        assert_eq!(marked, Some(through + 1), "{name}");

        // A recount without a mark leaves none.
        let c = b.conversation("ann").await;
        b.user_turn(&c, "one").await;
        b.store.set_exact_counts(c.id, &[], 0).await.or_fail(name);
        assert_eq!(read(&b, &c).await.provisional_counts_from, None, "{name}");
    }
}
