//! Reads on a given connection, shared by the readers (on the pool) and the writer
//! (inside its transactions, under the conversation's row lock): a conversation, a
//! turn, a message, the running turn, a task list.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{Conversation, Message, Turn};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::RepoResult;
use smallebot_core::tasks::{TaskList, TaskStoreError};
use smallebot_core::{conversation_columns, message_columns, turn_columns};
use sqlx::PgConnection;

use crate::rows;
use crate::tx::storage;

/// Reads one conversation on `conn` (the writer locks it with `lock_conversation` in
/// `write/guard.rs`).
pub(crate) async fn fetch_conversation(
    conn: &mut PgConnection,
    id: ConversationId,
) -> RepoResult<Option<Conversation>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        conversation_columns!(),
        " FROM conversations WHERE id = $1"
    ))
    .bind(id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("reading a conversation"))?;
    row.as_ref().map(rows::conversation).transpose()
}

/// Reads one turn on `conn`.
pub(crate) async fn fetch_turn(conn: &mut PgConnection, id: TurnId) -> RepoResult<Option<Turn>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE id = $1"
    ))
    .bind(id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("reading a turn"))?;
    row.as_ref().map(rows::turn).transpose()
}

/// Reads one message on `conn`.
pub(crate) async fn fetch_message(
    conn: &mut PgConnection,
    id: MessageId,
) -> RepoResult<Option<Message>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        message_columns!(),
        " FROM messages WHERE id = $1"
    ))
    .bind(id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("reading a message"))?;
    let Some(mut message) = row.as_ref().map(rows::message).transpose()? else {
        return Ok(None);
    };
    if message.role == smallebot_core::entities::Role::User {
        message.attachments = crate::attachment_rows::message_attachments(&mut *conn, id).await?;
    }
    Ok(Some(message))
}

/// The conversation's running turn, if any.
pub(crate) async fn running_turn_on(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
) -> RepoResult<Option<Turn>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE conversation_id = $1 AND status = 'running' ORDER BY seq LIMIT 1"
    ))
    .bind(conversation_id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("checking for a running turn"))?;
    row.as_ref().map(rows::turn).transpose()
}

/// Refuses with [`RepositoryError::TurnRunning`] while the conversation has a running
/// turn (call it holding the conversation's row lock).
pub(crate) async fn ensure_no_running_turn(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
) -> RepoResult<()> {
    match running_turn_on(conn, conversation_id).await? {
        Some(running) => Err(RepositoryError::TurnRunning(Box::new(running))),
        None => Ok(()),
    }
}

/// Maps a statement's error to the task store's.
pub(crate) fn task_failed(action: &'static str) -> impl FnOnce(sqlx::Error) -> TaskStoreError {
    move |err| TaskStoreError::Storage {
        action,
        message: err.to_string(),
    }
}

/// A stored list: parsed, or not a task list (with why).
pub(crate) enum Stored {
    /// No list yet.
    Missing,
    /// A list and its version.
    List(TaskList, i64),
    /// What is stored, why it is no task list, and its version.
    Corrupt(serde_json::Value, String, i64),
}

/// Reads a conversation's stored list.
pub(crate) async fn read_tasks(
    conn: &mut PgConnection,
    id: ConversationId,
) -> Result<Stored, sqlx::Error> {
    let row: Option<(serde_json::Value, i64)> =
        sqlx::query_as("SELECT body, version FROM task_lists WHERE conversation_id = $1")
            .bind(id.to_string())
            .fetch_optional(&mut *conn)
            .await?;
    Ok(match row {
        None => Stored::Missing,
        Some((body, version)) => match serde_json::from_value::<TaskList>(body.clone()) {
            Ok(list) => Stored::List(list, version),
            Err(err) => Stored::Corrupt(body, err.to_string(), version),
        },
    })
}
