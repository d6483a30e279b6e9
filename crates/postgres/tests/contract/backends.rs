//! The contract suite's backends: every contract test runs its case against a fresh
//! SQLite store on a real file and a fresh PostgreSQL store in a throwaway cluster,
//! with the same assertions (the message names the backend that failed).
//!
//! Without PostgreSQL binaries the Postgres half is skipped with one loud line,
//! unless `SMALLEBOT_REQUIRE_POSTGRES` is set (CI), where it fails.

use std::any::Any;
use std::sync::Arc;

use smallebot_core::entities::{
    Conversation, HistoryRow, LeaseOwner, NewMessage, NewToolCall, Role, SearchQuery, SearchScope,
    StepToolCall, ToolCallCompletion, ToolCallStatus, Turn, TurnStatus,
};
use smallebot_core::test_support::RowFixtures;
use smallebot_infrastructure::SqliteStore;
use smallebot_postgres::PgStore;
use smallebot_testkit::postgres::TestCluster;

/// Unwrapping that names the backend in the panic message.
pub trait OrFail<T> {
    /// The value, or a panic naming `backend` and the error.
    fn or_fail(self, backend: &str) -> T;
}

impl<T, E: std::fmt::Display> OrFail<T> for Result<T, E> {
    fn or_fail(self, backend: &str) -> T {
        self.unwrap_or_else(|e| panic!("{backend}: {e}"))
    }
}

impl<T> OrFail<T> for Option<T> {
    fn or_fail(self, backend: &str) -> T {
        self.unwrap_or_else(|| panic!("{backend}: expected a value, found none"))
    }
}

/// The tool name the fixtures' tool calls carry.
pub const TOOL: &str = "ExecuteCommand";

/// One store under test.
pub struct Backend {
    /// "sqlite" or "postgres", for assertion messages.
    pub name: &'static str,
    /// The store.
    pub store: Arc<dyn RowFixtures>,
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
    /// Every row of the conversation, in `seq` order.
    pub async fn rows(&self, c: &Conversation) -> Vec<HistoryRow> {
        self.store.rows_after(c.id, 0).await.or_fail(self.name)
    }

    /// Checks that a start in the unknown conversation `missing` was refused as not
    /// found (`refused`) and stored no turn.
    pub async fn refused_as_unknown<T: std::fmt::Debug>(
        &self,
        refused: smallebot_core::repository::RepoResult<T>,
        missing: smallebot_core::ids::ConversationId,
    ) {
        let name = self.name;
        let err = refused.unwrap_err();
        assert!(
            matches!(err, smallebot_core::RepositoryError::NotFound { .. }),
            "{name}: {err}"
        );
        assert_eq!(
            err.to_string(),
            format!("conversation {missing} not found"),
            "{name}"
        );
        assert!(
            self.store
                .list_turns(missing)
                .await
                .or_fail(name)
                .is_empty(),
            "{name}"
        );
    }

    /// Runs `sql` (written the same for both engines, no parameters) on the store's
    /// database, behind the store's back.
    pub async fn execute(&self, sql: &'static str) {
        let done = match &self.kind {
            Kind::Sqlite(store) => sqlx::query(sql).execute(store.pool()).await.map(|_| ()),
            Kind::Postgres(store, _) => sqlx::query(sql).execute(store.pool()).await.map(|_| ()),
        };
        done.or_fail(self.name);
    }

    /// A new conversation of `user`.
    pub async fn conversation(&self, user: &str) -> Conversation {
        self.store
            .create_conversation(user, "New conversation")
            .await
            .or_fail(self.name)
    }

    /// A turn with its user message, finished (`completed`) so the next one may start.
    pub async fn user_turn(&self, c: &Conversation, text: &str) -> Turn {
        let turn = self.running_user_turn(c, text).await;
        self.store
            .finish_turn(turn.id, TurnStatus::Completed, None)
            .await
            .or_fail(self.name)
    }

    /// A turn with its user message, still `running` (and without a lease).
    pub async fn running_user_turn(&self, c: &Conversation, text: &str) -> Turn {
        let turn = self.store.start_turn(c.id, false).await.or_fail(self.name);
        self.store
            .append_message(&NewMessage {
                conversation_id: c.id,
                turn_id: turn.id,
                role: Role::User,
                content: text.to_owned(),
                token_count: 3,
            })
            .await
            .or_fail(self.name);
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
            .or_fail(self.name);
    }

    /// A completed [`TOOL`] call (7 tokens, then 11 with its result).
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
                tool_name: TOOL.to_owned(),
                arguments: args.to_owned(),
                token_count: 7,
            })
            .await
            .or_fail(self.name);
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
            .or_fail(self.name);
    }
}

/// Messages as `role:content:replaced`, other rows as `other <seq>`.
pub fn describe(rows: &[HistoryRow]) -> Vec<String> {
    rows.iter()
        .map(|r| match r {
            HistoryRow::Message(m) => format!(
                "{}:{}:{}",
                m.role.as_str(),
                m.content,
                m.replaced_by.is_some()
            ),
            other => format!("other {}", other.seq()),
        })
        .collect()
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

/// A tool call of a model step ([`TOOL`], 7 tokens).
pub fn step_call(call_id: &str, arguments: &str) -> StepToolCall {
    StepToolCall {
        call_id: call_id.into(),
        tool_name: TOOL.into(),
        arguments: arguments.into(),
        token_count: 7,
    }
}

/// A search for `text` in `scope`: any time, at most 10 hits.
pub fn query(text: &str, scope: SearchScope) -> SearchQuery {
    SearchQuery {
        text: text.into(),
        scope,
        since: None,
        limit: 10,
    }
}
