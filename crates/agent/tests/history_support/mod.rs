//! Shared fixture of the history tool tests: a real SQLite store in a temp dir, rows
//! written through the store, and a registry with `SearchHistory` and
//! `ReadConversationData`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use smallebot_core::test_support::RowFixtures;
use std::sync::Arc;

use serde_json::Value;
use smallebot_agent::tools::{Args, ReadConversationData, SearchHistory, Tool, ToolRegistry};
use smallebot_application::ports::{ToolContext, ToolExecutor, ToolInvocation, ToolOutcome};
use smallebot_core::entities::{
    Conversation, NewMessage, NewThinkBlock, NewToolCall, Role, ToolCallCompletion, ToolCallStatus,
    Turn,
};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, Store};
use smallebot_infrastructure::SqliteStore;
use tempfile::TempDir;

pub struct Fixture {
    _dir: TempDir,
    pub store: SqliteStore,
    pub tools: ToolRegistry,
}

pub const MAX_RESULT: usize = 200;
/// ReadConversationData's page size in these tests.
pub const PAGE_CHARS: usize = 20_000;

pub async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    let shared: Arc<dyn Store> = Arc::new(store.clone());
    let tools = ToolRegistry::new()
        .with(Arc::new(SearchHistory::new(Arc::clone(&shared))))
        .with(Arc::new(ReadConversationData::new(shared, PAGE_CHARS)));
    Fixture {
        _dir: dir,
        store,
        tools,
    }
}

impl Fixture {
    pub async fn conversation(&self, user: &str, title: &str) -> Conversation {
        self.store.create_conversation(user, title).await.unwrap()
    }

    pub async fn user(&self, c: &Conversation, text: &str) -> Turn {
        let turn = self.store.start_turn(c.id, false).await.unwrap();
        self.message(c, &turn, Role::User, text).await;
        turn
    }

    pub async fn message(&self, c: &Conversation, turn: &Turn, role: Role, text: &str) -> i64 {
        self.store
            .append_message(&NewMessage {
                conversation_id: c.id,
                turn_id: turn.id,
                role,
                content: text.into(),
                token_count: 1,
            })
            .await
            .unwrap()
            .seq
    }

    pub async fn think(&self, c: &Conversation, turn: &Turn, text: &str) {
        self.store
            .append_think_block(&NewThinkBlock {
                conversation_id: c.id,
                turn_id: turn.id,
                content: text.into(),
            })
            .await
            .unwrap();
    }

    pub async fn tool(
        &self,
        c: &Conversation,
        turn: &Turn,
        call_id: &str,
        (name, args): (&str, &str),
        result: &str,
    ) {
        self.store
            .append_tool_call(&NewToolCall {
                conversation_id: c.id,
                turn_id: turn.id,
                call_id: call_id.into(),
                tool_name: name.into(),
                arguments: args.into(),
                token_count: 1,
            })
            .await
            .unwrap();
        self.store
            .complete_tool_call(
                turn.id,
                call_id,
                &ToolCallCompletion {
                    result: result.into(),
                    status: ToolCallStatus::Ok,
                    token_count: 1,
                },
            )
            .await
            .unwrap();
    }

    pub async fn sql(&self, sql: &'static str) {
        sqlx::query(sql).execute(self.store.pool()).await.unwrap();
    }

    /// Calls `tool` with `arguments` inside `c`'s turn scope (or outside any turn).
    pub async fn call_in(
        &self,
        c: Option<&Conversation>,
        tool: &str,
        arguments: &str,
    ) -> ToolOutcome {
        let invocation = ToolInvocation {
            call_id: "call_x".into(),
            name: tool.into(),
            arguments: arguments.into(),
        };
        let context = match c {
            Some(c) => ToolContext::in_turn(
                c.id,
                Default::default(),
                tokio_util::sync::CancellationToken::new(),
            ),
            None => ToolContext::outside_conversation(),
        };
        self.tools.execute(&invocation, &context).await
    }

    /// The store as the tools take it.
    pub fn store_arc(&self) -> Arc<dyn Store> {
        Arc::new(self.store.clone())
    }

    /// Calls `tool` directly (not through the fixture's registry) inside `c`'s turn.
    pub async fn call_tool(
        &self,
        c: &Conversation,
        tool: &dyn Tool,
        arguments: &Value,
    ) -> ToolOutcome {
        let args = Args::parse(tool.name(), &arguments.to_string()).unwrap();
        let context = ToolContext::in_turn(
            c.id,
            Default::default(),
            tokio_util::sync::CancellationToken::new(),
        );
        tool.call(&args, &context).await
    }

    pub async fn search(&self, c: &Conversation, arguments: Value) -> ToolOutcome {
        self.call_in(Some(c), "SearchHistory", &arguments.to_string())
            .await
    }
}

pub fn ok(outcome: ToolOutcome) -> String {
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    outcome.content
}

pub fn error(outcome: ToolOutcome) -> String {
    assert_eq!(outcome.status, ToolCallStatus::Error, "{}", outcome.content);
    assert!(
        outcome.content.starts_with("Error: "),
        "{}",
        outcome.content
    );
    outcome.content
}

pub fn match_count(text: &str) -> usize {
    text.matches("## Match ").count()
}
