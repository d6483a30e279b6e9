//! `/undo` in storage: the last turn in the context leaves it (rows kept, marked,
//! searchable), the running total follows through every later change, and
//! regenerating brings an undone turn back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use chrono::Utc;
use common::*;
use smallebot_application::rewrite;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{CompressionUpdate, HistoryRow, Role, SearchQuery, SearchScope};
use smallebot_core::repository::{
    ConversationRepository, HistoryRepository, SearchRepository, TurnRepository,
};
use smallebot_infrastructure::SqliteStore;

/// The stored running total, checked against a fresh sum.
async fn total(store: &SqliteStore, c: &smallebot_core::entities::Conversation) -> i64 {
    let read = store.get_conversation(c.id).await.unwrap().unwrap();
    let boundary = read.history_boundary();
    assert_eq!(
        read.context_tokens,
        store.token_sum_after(c.id, boundary).await.unwrap(),
        "the running total equals the sum of the rows in the context"
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

#[tokio::test]
async fn the_last_turn_leaves_the_context_and_stays_stored_marked_and_searchable() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    let first = user_turn(&f.store, &c, "first question").await;
    assistant(&f.store, &c, &first, "first answer").await;
    let second = user_turn(&f.store, &c, "second question about walruses").await;
    tool(&f.store, &c, &second, "c1", "{}", "walrus facts").await;
    assistant(&f.store, &c, &second, "second answer").await;
    assert_eq!(total(&f.store, &c).await, (3 + 5) + (3 + 11 + 5));

    let undone = rewrite::undo_last_turn(&f.store, c.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(undone.id, second.id);
    assert!(undone.undone_at.is_some());
    assert_eq!(total(&f.store, &c).await, 3 + 5);

    let context = f.store.context_rows_after(c.id, 0).await.unwrap();
    assert!(context.iter().all(|r| r.turn_id() == first.id));
    let all = f.store.rows_after(c.id, 0).await.unwrap();
    assert_eq!(
        user_texts(&all),
        ["first question", "second question about walruses"]
    );
    assert_eq!(all.len(), 2 + 3);
    let turns = f.store.list_turns(c.id).await.unwrap();
    assert_eq!(
        turns
            .iter()
            .map(|t| t.undone_at.is_some())
            .collect::<Vec<_>>(),
        [false, true]
    );
    let hits = f
        .store
        .search(&SearchQuery {
            text: "walruses".into(),
            scope: SearchScope::Conversation(c.id),
            since: None,
            limit: 10,
        })
        .await
        .unwrap();
    assert_eq!(hits.len(), 1, "an undone turn stays searchable");

    // The next undo takes the turn before; then nothing is left.
    let undone = rewrite::undo_last_turn(&f.store, c.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(undone.id, first.id);
    assert_eq!(total(&f.store, &c).await, 0);
    assert!(
        f.store
            .context_rows_after(c.id, 0)
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        rewrite::undo_last_turn(&f.store, c.id)
            .await
            .unwrap()
            .is_none()
    );

    // A new turn counts again, the undone ones stay out.
    let third = user_turn(&f.store, &c, "third").await;
    assistant(&f.store, &c, &third, "three").await;
    assert_eq!(total(&f.store, &c).await, 3 + 5);
}

#[tokio::test]
async fn nothing_to_undo_in_a_new_conversation() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    assert!(
        rewrite::undo_last_turn(&f.store, c.id)
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_running_turn_is_not_undone() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    let _done = user_turn(&f.store, &c, "done").await;
    let _running = running_user_turn(&f.store, &c, "running").await;
    let error = rewrite::undo_last_turn(&f.store, c.id).await.unwrap_err();
    assert!(matches!(error, RepositoryError::TurnRunning(_)), "{error}");
    assert_eq!(total(&f.store, &c).await, 3 + 3);
}

#[tokio::test]
async fn a_summarized_turn_is_not_undone() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    let only = user_turn(&f.store, &c, "old").await;
    assistant(&f.store, &c, &only, "old answer").await;
    let last = f
        .store
        .rows_after(c.id, 0)
        .await
        .unwrap()
        .last()
        .unwrap()
        .seq();
    f.store
        .set_compression(
            c.id,
            &CompressionUpdate {
                compressed_context: "summary".into(),
                compressed_at: Utc::now(),
                compressed_through_seq: last,
                expected_previous_seq: None,
            },
        )
        .await
        .unwrap();
    let error = rewrite::undo_last_turn(&f.store, c.id).await.unwrap_err();
    assert!(error.to_string().contains("already summarized"), "{error}");
    let turns = f.store.list_turns(c.id).await.unwrap();
    assert!(turns[0].undone_at.is_none());
}

#[tokio::test]
async fn the_total_skips_undone_rows_when_the_boundary_moves_and_rows_are_recounted() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    let first = user_turn(&f.store, &c, "first").await;
    assistant(&f.store, &c, &first, "one").await;
    let second = user_turn(&f.store, &c, "second").await;
    assistant(&f.store, &c, &second, "two").await;
    let third = user_turn(&f.store, &c, "third").await;
    tool(&f.store, &c, &third, "c1", "{}", "out").await;
    rewrite::undo_last_turn(&f.store, c.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(total(&f.store, &c).await, 8 + 8);

    // Exact counts written for an undone row change nothing in the total.
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let third_rows: Vec<(i64, i64)> = rows
        .iter()
        .filter(|r| r.turn_id() == third.id)
        .map(|r| (r.seq(), 1))
        .collect();
    let through = rows.last().unwrap().seq();
    f.store
        .set_exact_counts(c.id, &third_rows, through)
        .await
        .unwrap();
    assert_eq!(total(&f.store, &c).await, 8 + 8);

    // Summarizing the first turn recomputes the total without the undone one.
    let first_end = rows
        .iter()
        .filter(|r| r.turn_id() == first.id)
        .map(HistoryRow::seq)
        .max()
        .unwrap();
    f.store
        .set_compression(
            c.id,
            &CompressionUpdate {
                compressed_context: "summary".into(),
                compressed_at: Utc::now(),
                compressed_through_seq: first_end,
                expected_previous_seq: None,
            },
        )
        .await
        .unwrap();
    assert_eq!(total(&f.store, &c).await, 8);
}

#[tokio::test]
async fn regenerating_an_undone_turn_brings_it_back_and_editing_before_it_discards_it() {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    let first = user_turn(&f.store, &c, "first").await;
    assistant(&f.store, &c, &first, "one").await;
    let second = user_turn(&f.store, &c, "second").await;
    assistant(&f.store, &c, &second, "two").await;
    rewrite::undo_last_turn(&f.store, c.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(total(&f.store, &c).await, 8);

    let (turn, message) = rewrite::regenerate_turn(&f.store, second.id, &owner())
        .await
        .unwrap();
    assert_eq!(message.content, "second");
    assert!(
        turn.undone_at.is_none(),
        "regenerating brings the turn back"
    );
    assert_eq!(total(&f.store, &c).await, 8 + 3);
    let context = f.store.context_rows_after(c.id, 0).await.unwrap();
    assert_eq!(user_texts(&context), ["first", "second"]);
    f.store
        .finish_turn(
            turn.id,
            smallebot_core::entities::TurnStatus::Completed,
            None,
        )
        .await
        .unwrap();

    // Undo again, then edit the first message: the undone turn is discarded and the
    // total stays right (its rows were already out of it).
    rewrite::undo_last_turn(&f.store, c.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(total(&f.store, &c).await, 8);
    let first_message = f
        .store
        .rows_after(c.id, 0)
        .await
        .unwrap()
        .into_iter()
        .find_map(|r| match r {
            HistoryRow::Message(m) if m.role == Role::User => Some(m.id),
            _ => None,
        })
        .unwrap();
    rewrite::edit_user_message(&f.store, first_message, "first, edited", 4, &owner())
        .await
        .unwrap();
    assert_eq!(total(&f.store, &c).await, 4);
    let all = f.store.rows_after(c.id, 0).await.unwrap();
    assert_eq!(user_texts(&all), ["first", "first, edited"]);
}
