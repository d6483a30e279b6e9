//! Rewrites racing another writer: the application decides on reads, another process
//! compresses the conversation before the decision is applied, the store's guard
//! refuses the stale decision, and the application decides again — ending with the
//! error a rewrite run after the compression gives, nothing changed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use chrono::Utc;
use common::*;
use smallebot_application::rewrite;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{CompressionUpdate, Conversation, HistoryRow, Seq, TurnStatus};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{
    ConversationRepository, HistoryRepository, RepoResult, TurnRepository,
};
use smallebot_core::test_support::{Intercepted, Interceptor};
use smallebot_infrastructure::SqliteStore;

/// The SQLite store, except that the first rewrite primitive called is overtaken: the
/// conversation is compressed through `through` just before it runs.
struct Overtaken {
    inner: SqliteStore,
    conversation: ConversationId,
    through: Seq,
    done: AtomicBool,
}

impl Overtaken {
    async fn overtake(&self) {
        if self.done.swap(true, Ordering::SeqCst) {
            return;
        }
        let update = CompressionUpdate {
            compressed_context: "summary".into(),
            compressed_at: Utc::now(),
            compressed_through_seq: self.through,
            expected_previous_seq: None,
        };
        self.inner
            .set_compression(self.conversation, &update)
            .await
            .unwrap();
    }
}

#[async_trait]
impl Interceptor for Overtaken {
    async fn before(&self, method: &'static str) -> RepoResult<()> {
        if matches!(
            method,
            "replace_user_message" | "restart_turn" | "mark_turn_undone"
        ) {
            self.overtake().await;
        }
        Ok(())
    }
}

/// One answered turn, and the store that compresses it once a rewrite was decided.
async fn overtaken_after_one_turn() -> (
    Fixture,
    Intercepted<Overtaken>,
    Conversation,
    Vec<HistoryRow>,
) {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    let turn = user_turn(&f.store, &c, "question").await;
    assistant(&f.store, &c, &turn, "answer").await;
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let store = Intercepted {
        inner: Arc::new(f.store.clone()),
        hooks: Overtaken {
            inner: f.store.clone(),
            conversation: c.id,
            through: rows.last().unwrap().seq(),
            done: AtomicBool::new(false),
        },
    };
    (f, store, c, rows)
}

fn summarized(error: &RepositoryError, what: &str) -> bool {
    matches!(error, RepositoryError::Conflict(text)
        if text.starts_with(what) && text.contains("already summarized"))
}

#[tokio::test]
async fn an_edit_overtaken_by_a_compression_is_refused_as_summarized() {
    let (f, store, c, rows) = overtaken_after_one_turn().await;
    let HistoryRow::Message(question) = &rows[0] else {
        panic!("{rows:?}")
    };
    let error = rewrite::edit_user_message(&store, question.id, "edited", 1, &owner())
        .await
        .unwrap_err();
    assert!(summarized(&error, "this message"), "{error}");
    assert_eq!(f.store.rows_after(c.id, 0).await.unwrap(), rows);
}

#[tokio::test]
async fn a_regeneration_overtaken_by_a_compression_is_refused_as_summarized() {
    let (f, store, c, rows) = overtaken_after_one_turn().await;
    let turn_id = rows[0].turn_id();
    let error = rewrite::regenerate_turn(&store, turn_id, &owner())
        .await
        .unwrap_err();
    assert!(summarized(&error, "this turn"), "{error}");
    assert_eq!(f.store.rows_after(c.id, 0).await.unwrap(), rows);
    let turn = f.store.get_turn(turn_id).await.unwrap().unwrap();
    assert_eq!(turn.status, TurnStatus::Completed);
}

#[tokio::test]
async fn an_undo_overtaken_by_a_compression_is_refused_as_summarized() {
    let (f, store, c, _) = overtaken_after_one_turn().await;
    let error = rewrite::undo_last_turn(&store, c.id).await.unwrap_err();
    assert!(summarized(&error, "the last turn"), "{error}");
    let turns = f.store.list_turns(c.id).await.unwrap();
    assert!(turns.iter().all(|t| t.undone_at.is_none()), "{turns:?}");
}
