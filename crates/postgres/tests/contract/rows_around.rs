//! Contract: `rows_around` — the messages and tool calls nearest to a `seq`, think
//! blocks skipped, replaced messages kept, bounded on both sides. Runs on SQLite and
//! PostgreSQL.

use crate::backends;
use smallebot_application::rewrite;

use crate::backends::{OrFail, owner};
use smallebot_core::entities::{HistoryRow, NewThinkBlock};

#[tokio::test]
async fn nearest_rows_skip_think_blocks_and_respect_the_bounds() {
    for b in backends::each("nearest_rows_skip_think_blocks").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let t1 = b.user_turn(&c, "one").await; // turn 1, message 2
        let think = NewThinkBlock {
            conversation_id: c.id,
            turn_id: t1.id,
            content: "hmm".into(),
        };
        b.store.append_think_block(&think).await.or_fail(name); // 3
        b.tool(&c, &t1, "c1", "{}", "out").await; // 4
        b.assistant(&c, &t1, "two").await; // 5
        b.user_turn(&c, "three").await; // turn 6, message 7
        b.assistant(&c, &t1, "four").await; // 8

        let around = |seq, before, after| {
            let store = b.store.clone();
            async move {
                let rows = store.rows_around(c.id, seq, before, after).await;
                rows.or_fail(name)
            }
        };
        let seqs = |rows: Vec<HistoryRow>| rows.iter().map(HistoryRow::seq).collect::<Vec<_>>();
        assert_eq!(seqs(around(4, 1, 1).await), [2, 4, 5], "{name}");
        assert_eq!(seqs(around(5, 2, 2).await), [2, 4, 5, 7, 8], "{name}");
        assert_eq!(seqs(around(2, 1, 1).await), [2, 4], "{name}");
        assert_eq!(seqs(around(8, 1, 1).await), [7, 8], "{name}");
        // A seq that is no message or tool call (a think block, a turn) has only
        // neighbours.
        assert_eq!(seqs(around(3, 1, 1).await), [2, 4], "{name}");
        assert_eq!(seqs(around(6, 0, 0).await), Vec::<i64>::new(), "{name}");
        assert_eq!(seqs(around(5, 0, 0).await), [5], "{name}");
        assert!(
            matches!(
                &around(4, 0, 0).await[..],
                [HistoryRow::ToolCall(call)] if call.result.as_deref() == Some("out")
            ),
            "{name}"
        );
        assert_eq!(around(4, 9, 9).await.len(), 5, "{name}");
        // Past either end: only what there is.
        assert_eq!(seqs(around(0, 2, 2).await), [2, 4], "{name}");
        assert_eq!(seqs(around(99, 2, 2).await), [7, 8], "{name}");

        // A replaced message is still shown; its replacement comes after the rows of
        // earlier turns (seq 8 belongs to the first turn, so the edit keeps it).
        let HistoryRow::Message(three) = &around(7, 0, 0).await[0] else {
            panic!("{name}: expected the message at seq 7")
        };
        rewrite::edit_user_message(&*b.store, three.id, "three, edited", 3, &owner())
            .await
            .or_fail(name);
        let rows = around(7, 0, 5).await;
        let texts: Vec<_> = backends::describe(&rows);
        assert_eq!(
            texts,
            [
                "user:three:true",
                "assistant:four:false",
                "user:three, edited:false"
            ],
            "{name}"
        );
    }
}
