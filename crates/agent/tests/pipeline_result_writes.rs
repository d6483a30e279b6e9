//! A tool result's write runs beside the next request to the model, and the turn waits
//! for it before storing anything later: a store whose tool-result writes are held (or
//! refused) shows both.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::client::ChatEndpoint;
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_application::{ConversationService, SendOptions};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    CompressionUpdate, Conversation, FirstTurnTitle, HistoryRow, LeaseOwner, Message,
    MessageReplacement, NewStep, RecordedStep, SearchHit, SearchQuery, Seq, ToolCall,
    ToolCallCompletion, ToolCallStatus, Turn, TurnContents, TurnRestart, TurnStatus, TurnUndo,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::{
    ConversationRepository, HistoryRepository, RepoResult, SearchRepository, TurnRepository,
};
use smallebot_core::time::Timestamp;
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use tokio::sync::Semaphore;

/// What the store does with a tool result.
enum Gate {
    /// Writes it once the semaphore has a permit.
    Hold(Arc<Semaphore>),
    /// Refuses it.
    Fail,
}

/// A SQLite store whose tool-result writes go through [`Gate`].
struct GatedStore {
    inner: SqliteStore,
    gate: Gate,
    /// A permit per tool-result write begun.
    results_started: Arc<Semaphore>,
}

struct Setup {
    _dir: tempfile::TempDir,
    server: TestModel,
    store: SqliteStore,
    service: Arc<ConversationService>,
    results_started: Arc<Semaphore>,
}

/// A pipeline with GetCurrentTime on a gated store; the model calls the tool once, then
/// answers `answer`.
async fn setup(gate: Gate, answer: &str) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    server.push(ScriptedResponse::tool_calls([ToolCallSpec::new(
        "call_1",
        "GetCurrentTime",
        "{}",
    )]));
    server.push(ScriptedResponse::text(answer));
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    let results_started = Arc::new(Semaphore::new(0));
    let gated = GatedStore {
        inner: store.clone(),
        gate,
        results_started: Arc::clone(&results_started),
    };
    let endpoint = ChatEndpoint::new(server.base_url(), "test-model").with_api_key("test-key");
    let agent = AgentAssembly::new(Arc::new(gated), endpoint)
        .skill_path(dir.path().join("SKILL.md"))
        .tools(ToolRegistry::new().with(Arc::new(GetCurrentTime)))
        .build()
        .unwrap();
    Setup {
        _dir: dir,
        server,
        store,
        service: Arc::new(agent.service),
        results_started,
    }
}

fn stored_call(rows: &[HistoryRow]) -> &ToolCall {
    rows.iter()
        .find_map(|r| match r {
            HistoryRow::ToolCall(c) => Some(c),
            _ => None,
        })
        .expect("the tool call is stored")
}

fn assistant_texts(rows: &[HistoryRow]) -> Vec<&str> {
    rows.iter()
        .filter_map(|r| match r {
            HistoryRow::Message(m) if m.role == smallebot_core::entities::Role::Assistant => {
                Some(m.content.as_str())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_next_request_goes_out_while_the_tool_result_is_written() {
    let open = Arc::new(Semaphore::new(0));
    let s = setup(Gate::Hold(Arc::clone(&open)), "done").await;
    let conversation = s.service.create_conversation("ana").await.unwrap();
    let service = Arc::clone(&s.service);
    let turn = tokio::spawn(async move {
        service
            .send(conversation.id, "what time is it?", SendOptions::default())
            .await
    });
    // The result's write has begun and is held: the model is asked again meanwhile.
    let _begun = s.results_started.acquire().await.unwrap();
    tokio::time::timeout(Duration::from_secs(20), async {
        while s.server.request_count() < 2 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the second request was sent while the tool result was being written");
    let second = s.server.request(1).unwrap();
    assert!(
        second.body.to_string().contains("UTC"),
        "the second request carries the tool result: {}",
        second.body
    );
    // Nothing of the second step is stored before the result.
    let rows = s.store.rows_after(conversation.id, 0).await.unwrap();
    assert_eq!(stored_call(&rows).status, ToolCallStatus::Running);
    assert!(assistant_texts(&rows).iter().all(|t| *t != "done"));

    open.add_permits(1);
    let outcome = turn.await.unwrap().unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    let rows = s.store.rows_after(conversation.id, 0).await.unwrap();
    let call = stored_call(&rows);
    assert_eq!(call.status, ToolCallStatus::Ok);
    assert!(call.result.as_deref().unwrap_or_default().contains("UTC"));
    assert_eq!(assistant_texts(&rows).last(), Some(&"done"));
}

#[tokio::test]
async fn a_refused_tool_result_fails_the_turn_before_the_next_step_is_stored() {
    let s = setup(Gate::Fail, "never stored").await;
    let conversation = s.service.create_conversation("ana").await.unwrap();
    let sent = s
        .service
        .send(conversation.id, "what time is it?", SendOptions::default())
        .await;
    let error = sent.expect_err("a turn whose tool result cannot be stored fails");
    assert!(
        error.to_string().contains("refuses tool results"),
        "{error}"
    );
    let rows = s.store.rows_after(conversation.id, 0).await.unwrap();
    assert!(
        assistant_texts(&rows).iter().all(|t| *t != "never stored"),
        "the step after the refused result is not stored"
    );
    let turns = s.store.list_turns(conversation.id).await.unwrap();
    assert_eq!(turns.last().unwrap().status, TurnStatus::Failed);
}

#[async_trait]
impl ConversationRepository for GatedStore {
    async fn create_conversation(&self, user_name: &str, title: &str) -> RepoResult<Conversation> {
        self.inner.create_conversation(user_name, title).await
    }
    async fn list_conversations(&self, user_name: Option<&str>) -> RepoResult<Vec<Conversation>> {
        self.inner.list_conversations(user_name).await
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
impl TurnRepository for GatedStore {
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
    async fn running_turn(&self, conversation_id: ConversationId) -> RepoResult<Option<Turn>> {
        self.inner.running_turn(conversation_id).await
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
    async fn list_turns(&self, conversation_id: ConversationId) -> RepoResult<Vec<Turn>> {
        self.inner.list_turns(conversation_id).await
    }
    async fn turn_contents(&self, turn_id: TurnId) -> RepoResult<Option<TurnContents>> {
        self.inner.turn_contents(turn_id).await
    }
    async fn replace_user_message(
        &self,
        replacement: &MessageReplacement,
    ) -> RepoResult<(Turn, Message)> {
        self.inner.replace_user_message(replacement).await
    }
    async fn restart_turn(&self, restart: &TurnRestart) -> RepoResult<(Turn, Message)> {
        self.inner.restart_turn(restart).await
    }
    async fn mark_turn_undone(&self, undo: &TurnUndo) -> RepoResult<Turn> {
        self.inner.mark_turn_undone(undo).await
    }
}
#[async_trait]
impl HistoryRepository for GatedStore {
    async fn complete_tool_call(
        &self,
        turn_id: TurnId,
        call_id: &str,
        completion: &ToolCallCompletion,
    ) -> RepoResult<ToolCall> {
        self.results_started.add_permits(1);
        match self.gate {
            Gate::Hold(ref open) => {
                let _open = open.acquire().await;
                self.inner
                    .complete_tool_call(turn_id, call_id, completion)
                    .await
            }
            Gate::Fail => Err(RepositoryError::Unavailable {
                action: "completing a tool call",
                message: "the test store refuses tool results".into(),
            }),
        }
    }
    async fn get_message(&self, message_id: MessageId) -> RepoResult<Option<Message>> {
        self.inner.get_message(message_id).await
    }
    async fn rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        self.inner.rows_after(conversation_id, after_seq).await
    }
    async fn context_rows_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<Vec<HistoryRow>> {
        self.inner
            .context_rows_after(conversation_id, after_seq)
            .await
    }
    async fn rows_around(
        &self,
        conversation_id: ConversationId,
        seq: Seq,
        before: u32,
        after: u32,
    ) -> RepoResult<Vec<HistoryRow>> {
        self.inner
            .rows_around(conversation_id, seq, before, after)
            .await
    }
    async fn token_sum_after(
        &self,
        conversation_id: ConversationId,
        after_seq: Seq,
    ) -> RepoResult<i64> {
        self.inner.token_sum_after(conversation_id, after_seq).await
    }
    async fn mark_counts_provisional(
        &self,
        conversation_id: ConversationId,
        from_seq: Seq,
    ) -> RepoResult<()> {
        self.inner
            .mark_counts_provisional(conversation_id, from_seq)
            .await
    }
    async fn set_exact_counts(
        &self,
        conversation_id: ConversationId,
        counts: &[(Seq, i64)],
        through_seq: Seq,
    ) -> RepoResult<()> {
        self.inner
            .set_exact_counts(conversation_id, counts, through_seq)
            .await
    }
}
#[async_trait]
impl SearchRepository for GatedStore {
    async fn search(&self, query: &SearchQuery) -> RepoResult<Vec<SearchHit>> {
        self.inner.search(query).await
    }
}
