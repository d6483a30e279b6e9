//! The task-list end-to-end harness: the host's wiring (SQLite store, real tokenizer,
//! history builder, OpenAI client against the testkit, tool registry with the task
//! tools, `TaskPlanService` as the plan), plus stand-in file and shell tools.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::client::retry::RetryPolicy;
use smallebot_agent::client::{ChatEndpoint, ClientSettings};
use smallebot_agent::history::HistorySettings;
use smallebot_agent::tasks_plan::TaskPlanService;
use smallebot_agent::tools::{Args, GetCurrentTime, Tool, ToolRegistry, task_tools};
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolSchema};
use smallebot_application::{ConversationService, EventSubscription};
use smallebot_core::entities::HistoryRow;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::HistoryRepository;
use smallebot_core::tasks::TaskStore;
use smallebot_infrastructure::{FileTaskStore, SqliteStore};
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};
use tempfile::TempDir;

use crate::common::{Sleepy, system_prompt, tool_messages};

pub struct Harness {
    pub _dir: TempDir,
    pub server: TestModel,
    pub store: SqliteStore,
    pub service: Arc<ConversationService>,
    pub tasks: Arc<FileTaskStore>,
    pub workspace: String,
    pub events: EventSubscription,
}

/// The host's wiring (crates/host/src/wiring.rs) with the task tools and plan.
pub async fn harness() -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    let server = TestModel::start().await.unwrap();
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    let tasks = Arc::new(FileTaskStore::new(dir.path().join("tasks")));
    let task_store: Arc<dyn TaskStore> = tasks.clone();
    let registry = ToolRegistry::new()
        .with(Arc::new(GetCurrentTime))
        .with(Arc::new(Sleepy))
        .with(Arc::new(FakeWriteFile {
            root: workspace.clone(),
        }))
        .with(Arc::new(FakeShell));
    let registry = task_tools(&task_store)
        .into_iter()
        .fold(registry, ToolRegistry::with);
    let plan = TaskPlanService::new(task_store, &workspace);
    let endpoint = ChatEndpoint {
        base_url: server.base_url(),
        api_key: Some("test-key".into()),
        model: "test-model".into(),
    };
    let service = AgentAssembly::new(Arc::new(store.clone()), endpoint)
        .client(ClientSettings {
            idle_timeout: Duration::from_secs(10),
            retry: RetryPolicy {
                base_delay: Duration::from_millis(20),
                ..RetryPolicy::default()
            },
        })
        .history(HistorySettings {
            tool_result_max_length: 10_000,
            ..HistorySettings::default()
        })
        .skill_path(dir.path().join("SKILL.md"))
        .tools(registry)
        .plan(Arc::new(plan))
        .build()
        .unwrap()
        .service;
    let service = Arc::new(service);
    let events = service.subscribe();
    Harness {
        server,
        store,
        service,
        tasks,
        workspace: workspace.to_string_lossy().into_owned(),
        events,
        _dir: dir,
    }
}

/// `WriteFile(path, content)` under the workspace root (stands in for the real one).
pub struct FakeWriteFile {
    root: PathBuf,
}

#[async_trait]
impl Tool for FakeWriteFile {
    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: "WriteFile".into(),
            description: "Writes a file.".into(),
            parameters: json!({"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}),
        }
    }

    async fn call(&self, args: &Args, _ctx: &ToolContext) -> ToolOutcome {
        let path = args.string("path").unwrap();
        let content = args.string("content").unwrap();
        let target = self.root.join(path);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(&target, content).unwrap();
        ToolOutcome::ok(format!("Wrote {} bytes to {path}", content.len()))
    }
}

/// `ExecuteCommand(command, workingDirectory?)` answering 300 characters, running nothing.
pub struct FakeShell;

#[async_trait]
impl Tool for FakeShell {
    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: "ExecuteCommand".into(),
            description: "Runs a command.".into(),
            parameters: json!({"type":"object","properties":{"command":{"type":"string"},"workingDirectory":{"type":"string"}}}),
        }
    }

    async fn call(&self, _args: &Args, _ctx: &ToolContext) -> ToolOutcome {
        ToolOutcome::ok(format!("exit code 0\n{}", "h".repeat(300)))
    }
}

pub fn step(id: &str, tool: &str, args: Value) -> ScriptedResponse {
    ScriptedResponse::tool_calls([ToolCallSpec::new(id, tool, args.to_string())])
}

/// The `# Task List` section of a request's system prompt, if any.
pub fn task_list_section(request: &RecordedRequest) -> Option<String> {
    let prompt = system_prompt(request);
    let start = prompt.find("# Task List\n")? + "# Task List\n".len();
    let rest = &prompt[start..];
    Some(rest[..rest.find("\n\n# ").unwrap_or(rest.len())].to_owned())
}

/// Tool result of `call_id` as the model saw it in `request`.
pub fn result_of(request: &RecordedRequest, call_id: &str) -> String {
    tool_messages(request)
        .into_iter()
        .find(|(id, _)| id == call_id)
        .map(|(_, content)| content)
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
