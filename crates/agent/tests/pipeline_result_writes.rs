//! A tool result's write runs beside the next request to the model, and the turn waits
//! for it before storing anything later: a store whose tool-result writes are held (or
//! refused) shows both.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_application::{ConversationService, SendOptions};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{HistoryRow, Role, ToolCall, ToolCallStatus, TurnStatus};
use smallebot_core::repository::{HistoryRepository, RepoResult, TurnRepository};
use smallebot_core::test_support::{Intercepted, Interceptor};
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use tokio::sync::Semaphore;

/// What the store does with a tool result.
enum Gate {
    /// Writes it once the semaphore has a permit.
    Hold(Arc<Semaphore>),
    /// Refuses it.
    Fail,
}

/// Tool-result writes go through [`Gate`].
struct Gated {
    gate: Gate,
    /// A permit per tool-result write begun.
    results_started: Arc<Semaphore>,
}

#[async_trait]
impl Interceptor for Gated {
    async fn before(&self, method: &'static str) -> RepoResult<()> {
        if method != "complete_tool_call" {
            return Ok(());
        }
        self.results_started.add_permits(1);
        match &self.gate {
            Gate::Hold(open) => {
                let _open = open.acquire().await;
                Ok(())
            }
            Gate::Fail => Err(RepositoryError::Unavailable {
                action: "completing a tool call",
                message: "the test store refuses tool results".into(),
            }),
        }
    }
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
    let gated = Intercepted {
        inner: Arc::new(store.clone()),
        hooks: Gated {
            gate,
            results_started: Arc::clone(&results_started),
        },
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
            HistoryRow::Message(m) if m.role == Role::Assistant => Some(m.content.as_str()),
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
