//! The contract suite's backends: every contract test runs its case against a fresh
//! SQLite store on a real file and a fresh PostgreSQL store in a throwaway cluster,
//! with the same assertions (the message names the backend that failed).
//!
//! Without PostgreSQL binaries the Postgres half is skipped with one loud line,
//! unless `SMALLEBOT_REQUIRE_POSTGRES` is set (CI), where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::any::Any;
use std::sync::Arc;

use smallebot_core::entities::{
    Conversation, LeaseOwner, NewMessage, NewToolCall, Role, ToolCallCompletion, ToolCallStatus,
    Turn, TurnStatus,
};
use smallebot_core::repository::Store;
use smallebot_infrastructure::SqliteStore;
use smallebot_postgres::PgStore;
use smallebot_testkit::postgres::TestCluster;

/// One store under test.
pub struct Backend {
    /// "sqlite" or "postgres", for assertion messages.
    pub name: &'static str,
    /// The store.
    pub store: Arc<dyn Store>,
    /// The concrete store, for backend-specific checks.
    pub kind: Kind,
    /// Keeps the temp dir or the cluster alive.
    _keep: Box<dyn Any + Send + Sync>,
}

/// The concrete store behind a [`Backend`].
#[derive(Clone)]
pub enum Kind {
    /// SQLite on a file.
    Sqlite(SqliteStore),
    /// PostgreSQL, with the URL it was opened from.
    Postgres(PgStore, String),
}

/// A fresh SQLite backend.
pub async fn sqlite() -> Backend {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    Backend {
        name: "sqlite",
        store: Arc::new(store.clone()),
        kind: Kind::Sqlite(store),
        _keep: Box::new(dir),
    }
}

/// A fresh PostgreSQL backend in its own cluster; `None` when PostgreSQL is not
/// installed (and not required).
pub async fn postgres(test: &str) -> Option<Backend> {
    let cluster = TestCluster::start(test)?;
    let url = cluster.create_database().unwrap();
    let store = PgStore::connect(&url).await.unwrap();
    Some(Backend {
        name: "postgres",
        store: Arc::new(store.clone()),
        kind: Kind::Postgres(store, url),
        _keep: Box::new(cluster),
    })
}

/// Both backends (SQLite first), fresh and empty.
pub async fn each(test: &str) -> Vec<Backend> {
    let mut all = vec![sqlite().await];
    all.extend(postgres(test).await);
    all
}

impl Backend {
    /// A new conversation of `user`.
    pub async fn conversation(&self, user: &str) -> Conversation {
        self.store
            .create_conversation(user, "New conversation")
            .await
            .unwrap()
    }

    /// A turn with its user message, finished (`completed`) so the next one may start.
    pub async fn user_turn(&self, c: &Conversation, text: &str) -> Turn {
        let turn = self.running_user_turn(c, text).await;
        self.store
            .finish_turn(turn.id, TurnStatus::Completed, None)
            .await
            .unwrap()
    }

    /// A turn with its user message, still `running` (and without a lease).
    pub async fn running_user_turn(&self, c: &Conversation, text: &str) -> Turn {
        let turn = self.store.start_turn(c.id, false).await.unwrap();
        self.store
            .append_message(&NewMessage {
                conversation_id: c.id,
                turn_id: turn.id,
                role: Role::User,
                content: text.to_owned(),
                token_count: 3,
            })
            .await
            .unwrap();
        turn
    }

    /// An assistant message (5 tokens) in `turn`.
    pub async fn assistant(&self, c: &Conversation, turn: &Turn, text: &str) {
        self.store
            .append_message(&NewMessage {
                conversation_id: c.id,
                turn_id: turn.id,
                role: Role::Assistant,
                content: text.to_owned(),
                token_count: 5,
            })
            .await
            .unwrap();
    }

    /// A completed `ExecuteCommand` call (7 tokens, then 11 with its result).
    pub async fn tool(
        &self,
        c: &Conversation,
        turn: &Turn,
        call_id: &str,
        args: &str,
        result: &str,
    ) {
        self.store
            .append_tool_call(&NewToolCall {
                conversation_id: c.id,
                turn_id: turn.id,
                call_id: call_id.to_owned(),
                tool_name: "ExecuteCommand".to_owned(),
                arguments: args.to_owned(),
                token_count: 7,
            })
            .await
            .unwrap();
        self.store
            .complete_tool_call(
                turn.id,
                call_id,
                &ToolCallCompletion {
                    result: result.to_owned(),
                    status: ToolCallStatus::Ok,
                    token_count: 11,
                },
            )
            .await
            .unwrap();
    }
}

/// The lease owner tests run turns as.
pub fn owner() -> LeaseOwner {
    LeaseOwner {
        pid: std::process::id(),
        host: "test-host".into(),
        // Stored with milliseconds.
        started_at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 3),
    }
}
