//! Shared fixtures: a store on a real SQLite file in a temp dir.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![allow(dead_code)]

use smallebot_core::entities::{
    Conversation, NewMessage, NewToolCall, Role, ToolCallCompletion, ToolCallStatus, Turn,
};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};
use smallebot_core::test_support::RowFixtures;
use smallebot_infrastructure::SqliteStore;
use tempfile::TempDir;

pub struct Fixture {
    pub dir: TempDir,
    pub store: SqliteStore,
}

pub async fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    Fixture { dir, store }
}

pub async fn conversation(store: &SqliteStore, user: &str) -> Conversation {
    store
        .create_conversation(user, "New conversation")
        .await
        .unwrap()
}

/// A turn with its user message, finished (`completed`) so the next one may start.
pub async fn user_turn(store: &SqliteStore, c: &Conversation, text: &str) -> Turn {
    let turn = running_user_turn(store, c, text).await;
    store
        .finish_turn(
            turn.id,
            smallebot_core::entities::TurnStatus::Completed,
            None,
        )
        .await
        .unwrap()
}

/// A turn with its user message, still `running` (and without a lease).
pub async fn running_user_turn(store: &SqliteStore, c: &Conversation, text: &str) -> Turn {
    let turn = store.start_turn(c.id, false).await.unwrap();
    store
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

pub async fn assistant(store: &SqliteStore, c: &Conversation, turn: &Turn, text: &str) {
    store
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

pub async fn tool(
    store: &SqliteStore,
    c: &Conversation,
    turn: &Turn,
    call_id: &str,
    args: &str,
    result: &str,
) {
    store
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
    store
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

pub async fn count(store: &SqliteStore, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(store.pool())
        .await
        .unwrap()
}

/// The lease owner tests run turns as.
pub fn owner() -> smallebot_core::entities::LeaseOwner {
    smallebot_core::entities::LeaseOwner {
        pid: std::process::id(),
        host: "test-host".into(),
        // Stored with milliseconds.
        started_at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 3),
    }
}
