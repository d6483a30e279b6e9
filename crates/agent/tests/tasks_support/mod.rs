//! The task-list end-to-end harness: the command line's own assembly
//! ([`AgentAssembly::from_home`]: real workspace tools, real `ExecuteCommand`, task tools
//! over a file task store, `TaskPlanService` as the plan) on a real SQLite store, against
//! the testkit, plus a `Sleepy` tool.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::tools::ToolRegistry;
use smallebot_application::{ConversationService, EventKind, EventSubscription};
use smallebot_core::entities::HistoryRow;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::HistoryRepository;
use smallebot_infrastructure::{FileTaskStore, SqliteStore};
use smallebot_model_client::{ChatEndpoint, ClientSettings, RetryPolicy};
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};
use tempfile::TempDir;

use crate::common::{Sleepy, drain_checked, system_prompt, tool_messages};

pub struct Harness {
    pub _dir: TempDir,
    pub server: TestModel,
    pub store: SqliteStore,
    pub service: Arc<ConversationService>,
    pub tasks: Arc<FileTaskStore>,
    pub workspace: String,
    events: std::sync::Mutex<Vec<EventSubscription>>,
}

/// The command line's assembly of a home directory (agent.json raises
/// `toolResultMaxLength` so results reach the model whole), with the endpoint pointed
/// at the testkit and no environment variables read.
pub async fn harness() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(workspace.join("sub")).unwrap();
    std::fs::write(
        dir.path().join("agent.json"),
        r#"{"toolResultMaxLength": 10000}"#,
    )
    .unwrap();
    let server = TestModel::start().await.unwrap();
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    let tasks = Arc::new(FileTaskStore::new(dir.path().join("tasks")));
    let endpoint = ChatEndpoint::new(server.base_url(), "test-model").with_api_key("test-key");
    let service = AgentAssembly::from_home_with_env(dir.path(), &|_| None)
        .unwrap()
        .store(Arc::new(store.clone()))
        .task_store(tasks.clone())
        .endpoint(endpoint)
        .client(ClientSettings {
            idle_timeout: Duration::from_secs(10),
            first_byte_timeout: Duration::from_secs(10),
            retry: RetryPolicy {
                base_delay: Duration::from_millis(20),
                ..RetryPolicy::default()
            },
            stream_max_retries: 5,
        })
        .tools(ToolRegistry::new().with(Arc::new(Sleepy)))
        .build()
        .unwrap()
        .service;
    let workspace = std::path::absolute(&workspace).unwrap();
    Harness {
        server,
        store,
        service: Arc::new(service),
        tasks,
        workspace: workspace.to_string_lossy().into_owned(),
        events: std::sync::Mutex::new(Vec::new()),
        _dir: dir,
    }
}

impl Harness {
    /// A new conversation whose events the harness keeps.
    pub async fn conversation(&self) -> ConversationId {
        let c = self.service.create_conversation("tester").await.unwrap();
        self.events
            .lock()
            .unwrap()
            .push(self.service.subscribe(c.id));
        c.id
    }

    /// Every event so far, envelopes checked.
    pub fn drain_events(&self) -> Vec<EventKind> {
        drain_checked(&self.events)
    }
}

pub fn step(id: &str, tool: &str, args: Value) -> ScriptedResponse {
    ScriptedResponse::tool_calls([ToolCallSpec::new(id, tool, args.to_string())])
}

/// The `# Task List` section of a request, if any: it follows the newest message (its
/// text, or its last text part), never the system prompt.
pub fn task_list_section(request: &RecordedRequest) -> Option<String> {
    assert!(
        !system_prompt(request).contains("# Task List\n"),
        "the plan is never in the system prompt"
    );
    let last = request.body["messages"].as_array()?.last()?;
    let text = match &last["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.last()?["text"].as_str()?.to_owned(),
        _ => return None,
    };
    let start = text.find("# Task List\n")? + "# Task List\n".len();
    Some(text[start..].to_owned())
}

/// Tool result of `call_id` as the model saw it in `request`.
pub fn result_of(request: &RecordedRequest, call_id: &str) -> String {
    tool_messages(request)
        .into_iter()
        .find(|(id, _)| id == call_id)
        // The newest result carries the plan after it.
        .map(|(_, content)| match content.find("\n\n# Task List\n") {
            Some(at) => content[..at].to_owned(),
            None => content,
        })
        .unwrap_or_else(|| panic!("no result for {call_id}"))
}

/// A task as the tools write it (keys in the file's order).
pub fn task_json(id: &str, title: &str, description: &str, status: &str, deps: &[&str]) -> String {
    format!(
        r#"{{"id":"{id}","title":"{title}","description":"{description}","done":{},"status":"{status}","dependsOn":{},"notes":"","toolHistory":[],"files":[]}}"#,
        status == "done",
        json!(deps)
    )
}

impl Harness {
    /// Every stored row of the conversation.
    pub async fn store_rows(&self, id: ConversationId) -> Vec<HistoryRow> {
        self.store.rows_after(id, 0).await.unwrap()
    }
}
