//! Rewrites racing another writer: the application decides on reads, another process
//! compresses the conversation before the decision is applied, the store's guard
//! refuses the stale decision, and the application decides again — ending with the
//! error a rewrite run after the compression gives, nothing changed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use chrono::Utc;
use common::*;
use smallebot_application::rewrite;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    CompressionUpdate, Conversation, FirstTurnTitle, HistoryRow, LeaseOwner, Message,
    MessageReplacement, NewStep, RecordedStep, SearchHit, SearchQuery, Seq, ToolCall,
    ToolCallCompletion, Turn, TurnContents, TurnRestart, TurnStatus, TurnUndo,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::{
    ConversationRepository, HistoryRepository, RepoResult, SearchRepository, TurnRepository,
};
use smallebot_core::time::Timestamp;
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
impl ConversationRepository for Overtaken {
    async fn create_conversation(&self, user: &str, title: &str) -> RepoResult<Conversation> {
        self.inner.create_conversation(user, title).await
    }
    async fn list_conversations(&self, user: Option<&str>) -> RepoResult<Vec<Conversation>> {
        self.inner.list_conversations(user).await
    }
    async fn get_conversation(&self, id: ConversationId) -> RepoResult<Option<Conversation>> {
        self.inner.get_conversation(id).await
    }
    async fn rename_conversation(&self, id: ConversationId, title: &str) -> RepoResult<()> {
        self.inner.rename_conversation(id, title).await
    }
    async fn set_conversation_model(
        &self,
        id: ConversationId,
        model: Option<&str>,
    ) -> RepoResult<()> {
        self.inner.set_conversation_model(id, model).await
    }
    async fn delete_conversation(&self, id: ConversationId) -> RepoResult<bool> {
        self.inner.delete_conversation(id).await
    }
    async fn set_compression(
        &self,
        id: ConversationId,
        update: &CompressionUpdate,
    ) -> RepoResult<Conversation> {
        self.inner.set_compression(id, update).await
    }
}

#[async_trait]
impl TurnRepository for Overtaken {
    async fn start_turn_with_message(
        &self,
        conversation_id: ConversationId,
        thinking_mode: bool,
        content: &str,
        token_count: i64,
        owner: &LeaseOwner,
    ) -> RepoResult<(Turn, Message)> {
        self.inner
            .start_turn_with_message(conversation_id, thinking_mode, content, token_count, owner)
            .await
    }
    async fn start_turn_with_title(
        &self,
        conversation_id: ConversationId,
        thinking_mode: bool,
        content: &str,
        token_count: i64,
        owner: &LeaseOwner,
        title: FirstTurnTitle<'_>,
    ) -> RepoResult<(Turn, Message, bool)> {
        self.inner
            .start_turn_with_title(
                conversation_id,
                thinking_mode,
                content,
                token_count,
                owner,
                title,
            )
            .await
    }
    async fn heartbeat(&self, turn_id: TurnId, at: Timestamp) -> RepoResult<bool> {
        self.inner.heartbeat(turn_id, at).await
    }
    async fn running_turns(&self) -> RepoResult<Vec<Turn>> {
        self.inner.running_turns().await
    }
    async fn running_turn(&self, id: ConversationId) -> RepoResult<Option<Turn>> {
        self.inner.running_turn(id).await
    }
    async fn interrupt_turn(&self, turn_id: TurnId) -> RepoResult<bool> {
        self.inner.interrupt_turn(turn_id).await
    }
    async fn finish_turn(
        &self,
        turn_id: TurnId,
        status: TurnStatus,
        error: Option<&str>,
    ) -> RepoResult<Turn> {
        self.inner.finish_turn(turn_id, status, error).await
    }
    async fn record_step(&self, step: &NewStep) -> RepoResult<RecordedStep> {
        self.inner.record_step(step).await
    }
    async fn get_turn(&self, turn_id: TurnId) -> RepoResult<Option<Turn>> {
        self.inner.get_turn(turn_id).await
    }
    async fn list_turns(&self, id: ConversationId) -> RepoResult<Vec<Turn>> {
        self.inner.list_turns(id).await
    }
    async fn turn_contents(&self, turn_id: TurnId) -> RepoResult<Option<TurnContents>> {
        self.inner.turn_contents(turn_id).await
    }
    async fn replace_user_message(
        &self,
        replacement: &MessageReplacement,
    ) -> RepoResult<(Turn, Message)> {
        self.overtake().await;
        self.inner.replace_user_message(replacement).await
    }
    async fn restart_turn(&self, restart: &TurnRestart) -> RepoResult<(Turn, Message)> {
        self.overtake().await;
        self.inner.restart_turn(restart).await
    }
    async fn mark_turn_undone(&self, undo: &TurnUndo) -> RepoResult<Turn> {
        self.overtake().await;
        self.inner.mark_turn_undone(undo).await
    }
}

#[async_trait]
impl HistoryRepository for Overtaken {
    async fn complete_tool_call(
        &self,
        turn_id: TurnId,
        call_id: &str,
        completion: &ToolCallCompletion,
    ) -> RepoResult<ToolCall> {
        self.inner
            .complete_tool_call(turn_id, call_id, completion)
            .await
    }
    async fn get_message(&self, id: MessageId) -> RepoResult<Option<Message>> {
        self.inner.get_message(id).await
    }
    async fn rows_after(&self, id: ConversationId, after: Seq) -> RepoResult<Vec<HistoryRow>> {
        self.inner.rows_after(id, after).await
    }
    async fn context_rows_after(
        &self,
        id: ConversationId,
        after: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        self.inner.context_rows_after(id, after).await
    }
    async fn answer_versions(
        &self,
        id: ConversationId,
    ) -> RepoResult<Vec<smallebot_core::entities::AnswerVersion>> {
        self.inner.answer_versions(id).await
    }
    async fn rows_around(
        &self,
        id: ConversationId,
        seq: Seq,
        before: u32,
        after: u32,
    ) -> RepoResult<Vec<HistoryRow>> {
        self.inner.rows_around(id, seq, before, after).await
    }
    async fn token_sum_after(&self, id: ConversationId, after: Seq) -> RepoResult<i64> {
        self.inner.token_sum_after(id, after).await
    }
    async fn mark_counts_provisional(&self, id: ConversationId, from: Seq) -> RepoResult<()> {
        self.inner.mark_counts_provisional(id, from).await
    }
    async fn set_exact_counts(
        &self,
        id: ConversationId,
        counts: &[(Seq, i64)],
        through: Seq,
    ) -> RepoResult<()> {
        self.inner.set_exact_counts(id, counts, through).await
    }
}

#[async_trait]
impl SearchRepository for Overtaken {
    async fn search(&self, query: &SearchQuery) -> RepoResult<Vec<SearchHit>> {
        self.inner.search(query).await
    }
}

/// One answered turn, and the store that compresses it once a rewrite was decided.
async fn overtaken_after_one_turn() -> (Fixture, Overtaken, Conversation, Vec<HistoryRow>) {
    let f = fixture().await;
    let c = conversation(&f.store, "ann").await;
    let turn = user_turn(&f.store, &c, "question").await;
    assistant(&f.store, &c, &turn, "answer").await;
    let rows = f.store.rows_after(c.id, 0).await.unwrap();
    let store = Overtaken {
        inner: f.store.clone(),
        conversation: c.id,
        through: rows.last().unwrap().seq(),
        done: AtomicBool::new(false),
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
