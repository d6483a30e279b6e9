//! Contract: `/undo` — the last turn in the context leaves it (rows kept, marked,
//! searchable), running and summarized turns are refused, the running total follows
//! through every later change, and regenerating brings an undone turn back. Runs on
//! SQLite and PostgreSQL.

use crate::backends;
use smallebot_application::rewrite;

use crate::backends::{Backend, OrFail, owner, query};
use chrono::Utc;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    CompressionUpdate, Conversation, HistoryRow, Role, SearchScope, TurnStatus,
};

/// The stored running total, checked against a fresh sum.
async fn total(b: &Backend, c: &Conversation) -> i64 {
    let name = b.name;
    let read = b
        .store
        .get_conversation(c.id)
        .await
        .or_fail(name)
        .or_fail(name);
    let boundary = read.history_boundary();
    let sum = b.store.token_sum_after(c.id, boundary).await.or_fail(name);
    assert_eq!(
        read.context_tokens, sum,
        "{name}: the running total equals the sum of the rows in the context"
    );
    read.context_tokens
}

fn user_texts(rows: &[HistoryRow]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| match r {
            HistoryRow::Message(m) if m.role == Role::User => Some(m.content.clone()),
            _ => None,
        })
        .collect()
}

fn summary(through: i64) -> CompressionUpdate {
    CompressionUpdate {
        compressed_context: "summary".into(),
        compressed_at: Utc::now(),
        compressed_through_seq: through,
        expected_previous_seq: None,
    }
}

#[tokio::test]
async fn the_last_turn_leaves_the_context_and_stays_stored_marked_and_searchable() {
    for b in backends::each("the_last_turn_leaves_the_context").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let nothing = rewrite::undo_last_turn(&*b.store, c.id).await.or_fail(name);
        assert!(
            nothing.is_none(),
            "{name}: nothing to undo in a new conversation"
        );
        let first = b.user_turn(&c, "first question").await;
        b.assistant(&c, &first, "first answer").await;
        let second = b.user_turn(&c, "second question about walruses").await;
        b.tool(&c, &second, "c1", "{}", "walrus facts").await;
        b.assistant(&c, &second, "second answer").await;
        assert_eq!(total(&b, &c).await, (3 + 5) + (3 + 11 + 5), "{name}");

        let undone = rewrite::undo_last_turn(&*b.store, c.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(undone.id, second.id, "{name}");
        assert!(undone.undone_at.is_some(), "{name}");
        assert_eq!(total(&b, &c).await, 3 + 5, "{name}");

        let context = b.store.context_rows_after(c.id, 0).await.or_fail(name);
        assert!(context.iter().all(|r| r.turn_id() == first.id), "{name}");
        assert_eq!(context.len(), 2, "{name}");
        let all = b.rows(&c).await;
        assert_eq!(
            user_texts(&all),
            ["first question", "second question about walruses"],
            "{name}"
        );
        assert_eq!(all.len(), 2 + 3, "{name}");
        let turns = b.store.list_turns(c.id).await.or_fail(name);
        let marks: Vec<bool> = turns.iter().map(|t| t.undone_at.is_some()).collect();
        assert_eq!(marks, [false, true], "{name}");
        let hits = b
            .store
            .search(&query("walruses", SearchScope::Conversation(c.id)))
            .await
            .or_fail(name);
        assert_eq!(hits.len(), 1, "{name}: an undone turn stays searchable");

        // The next undo takes the turn before; then nothing is left.
        let undone = rewrite::undo_last_turn(&*b.store, c.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(undone.id, first.id, "{name}");
        assert_eq!(total(&b, &c).await, 0, "{name}");
        let context = b.store.context_rows_after(c.id, 0).await.or_fail(name);
        assert!(context.is_empty(), "{name}: {context:?}");
        let nothing = rewrite::undo_last_turn(&*b.store, c.id).await.or_fail(name);
        assert!(nothing.is_none(), "{name}");

        // A new turn counts again, the undone ones stay out.
        let third = b.user_turn(&c, "third").await;
        b.assistant(&c, &third, "three").await;
        assert_eq!(total(&b, &c).await, 3 + 5, "{name}");
    }
}

#[tokio::test]
async fn running_and_summarized_turns_are_not_undone() {
    for b in backends::each("running_and_summarized_turns_are_not_undone").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let _done = b.user_turn(&c, "done").await;
        let _running = b.running_user_turn(&c, "running").await;
        let error = rewrite::undo_last_turn(&*b.store, c.id).await.unwrap_err();
        assert!(
            matches!(error, RepositoryError::TurnRunning(_)),
            "{name}: {error}"
        );
        assert_eq!(total(&b, &c).await, 3 + 3, "{name}");
        let turns = b.store.list_turns(c.id).await.or_fail(name);
        assert!(turns.iter().all(|t| t.undone_at.is_none()), "{name}");

        let c = b.conversation("ann").await;
        let only = b.user_turn(&c, "old").await;
        b.assistant(&c, &only, "old answer").await;
        let last = b.rows(&c).await.last().or_fail(name).seq();
        b.store
            .set_compression(c.id, &summary(last))
            .await
            .or_fail(name);
        let error = rewrite::undo_last_turn(&*b.store, c.id).await.unwrap_err();
        assert!(
            error.to_string().contains("already summarized"),
            "{name}: {error}"
        );
        let turns = b.store.list_turns(c.id).await.or_fail(name);
        assert!(turns[0].undone_at.is_none(), "{name}");
    }
}

#[tokio::test]
async fn the_total_skips_undone_rows_when_the_boundary_moves_and_rows_are_recounted() {
    for b in backends::each("the_total_skips_undone_rows").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let first = b.user_turn(&c, "first").await;
        b.assistant(&c, &first, "one").await;
        let second = b.user_turn(&c, "second").await;
        b.assistant(&c, &second, "two").await;
        let third = b.user_turn(&c, "third").await;
        b.tool(&c, &third, "c1", "{}", "out").await;
        rewrite::undo_last_turn(&*b.store, c.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(total(&b, &c).await, 8 + 8, "{name}");

        // Exact counts written for an undone row change nothing in the total.
        let rows = b.rows(&c).await;
        let third_rows: Vec<(i64, i64)> = rows
            .iter()
            .filter(|r| r.turn_id() == third.id)
            .map(|r| (r.seq(), 1))
            .collect();
        let through = rows.last().or_fail(name).seq();
        b.store
            .set_exact_counts(c.id, &third_rows, through)
            .await
            .or_fail(name);
        assert_eq!(total(&b, &c).await, 8 + 8, "{name}");

        // Summarizing the first turn recomputes the total without the undone one.
        let first_end = rows
            .iter()
            .filter(|r| r.turn_id() == first.id)
            .map(HistoryRow::seq)
            .max()
            .or_fail(name);
        b.store
            .set_compression(c.id, &summary(first_end))
            .await
            .or_fail(name);
        assert_eq!(total(&b, &c).await, 8, "{name}");
    }
}

#[tokio::test]
async fn regenerating_an_undone_turn_brings_it_back_and_editing_before_it_discards_it() {
    for b in backends::each("regenerating_an_undone_turn_brings_it_back").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let first = b.user_turn(&c, "first").await;
        b.assistant(&c, &first, "one").await;
        let second = b.user_turn(&c, "second").await;
        b.assistant(&c, &second, "two").await;
        rewrite::undo_last_turn(&*b.store, c.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(total(&b, &c).await, 8, "{name}");

        let (turn, message) = rewrite::regenerate_turn(&*b.store, second.id, &owner())
            .await
            .or_fail(name);
        assert_eq!(message.content, "second", "{name}");
        assert!(
            turn.undone_at.is_none(),
            "{name}: regenerating brings the turn back"
        );
        assert_eq!(total(&b, &c).await, 8 + 3, "{name}");
        let context = b.store.context_rows_after(c.id, 0).await.or_fail(name);
        assert_eq!(user_texts(&context), ["first", "second"], "{name}");
        b.store
            .finish_turn(turn.id, TurnStatus::Completed, None)
            .await
            .or_fail(name);

        // Undo again, then edit the first message: the undone turn is discarded and the
        // total stays right (its rows were already out of it).
        rewrite::undo_last_turn(&*b.store, c.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(total(&b, &c).await, 8, "{name}");
        let first_message = b
            .rows(&c)
            .await
            .into_iter()
            .find_map(|r| match r {
                HistoryRow::Message(m) if m.role == Role::User => Some(m.id),
                _ => None,
            })
            .or_fail(name);
        rewrite::edit_user_message(&*b.store, first_message, "first, edited", 4, &owner())
            .await
            .or_fail(name);
        assert_eq!(total(&b, &c).await, 4, "{name}");
        let all = b.rows(&c).await;
        assert_eq!(user_texts(&all), ["first", "first, edited"], "{name}");
        let turns = b.store.list_turns(c.id).await.or_fail(name);
        let ids: Vec<_> = turns.iter().map(|t| t.id).collect();
        assert!(!ids.contains(&second.id), "{name}: the undone turn is gone");
        assert_eq!(ids.len(), 2, "{name}: the first turn and the edited one");
    }
}
