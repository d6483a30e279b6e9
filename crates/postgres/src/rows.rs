//! Decoding stored rows into entities.

use std::str::FromStr;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    AnswerCut, Conversation, LeaseOwner, Message, Role, ToolCall, ToolCallStatus, Turn, TurnLease,
    TurnStatus,
};
use smallebot_core::time::Timestamp;
use sqlx::Row;
use sqlx::postgres::PgRow;

/// The `turns` columns [`turn`] reads, for `concat!`.
macro_rules! turn_columns {
    () => {
        "id, conversation_id, seq, thinking_mode, status, error, created_at, completed_at, \
         owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at, cut"
    };
}
pub(crate) use turn_columns;

/// The `messages` columns [`message`] reads, for `concat!`.
macro_rules! message_columns {
    () => {
        "id, conversation_id, turn_id, seq, role, content, token_count, created_at, \
         replaced_by, is_edited"
    };
}
pub(crate) use message_columns;

/// The `tool_calls` columns [`tool_call`] reads, for `concat!`.
macro_rules! call_columns {
    () => {
        "id, conversation_id, turn_id, seq, call_id, tool_name, arguments, result, status, \
         token_count, started_at, completed_at"
    };
}
pub(crate) use call_columns;

/// A stored value that does not decode: what it was and why.
pub(crate) fn corrupt(what: &str, detail: impl std::fmt::Display) -> RepositoryError {
    RepositoryError::Corrupt(format!("{what}: {detail}"))
}

/// A column of any type sqlx decodes from PostgreSQL.
pub(crate) fn get<'r, T>(row: &'r PgRow, column: &str) -> Result<T, RepositoryError>
where
    T: sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
{
    row.try_get::<T, _>(column).map_err(|e| corrupt(column, e))
}

/// A text column holding an id.
pub(crate) fn id<T: FromStr>(row: &PgRow, column: &str) -> Result<T, RepositoryError>
where
    T::Err: std::fmt::Display,
{
    let raw: String = get(row, column)?;
    raw.parse::<T>().map_err(|e| corrupt(column, e))
}

fn opt_id<T: FromStr>(row: &PgRow, column: &str) -> Result<Option<T>, RepositoryError>
where
    T::Err: std::fmt::Display,
{
    get::<Option<String>>(row, column)?
        .map(|raw| raw.parse::<T>().map_err(|e| corrupt(column, e)))
        .transpose()
}

fn time(row: &PgRow, column: &str) -> Result<Timestamp, RepositoryError> {
    get(row, column)
}

fn opt_time(row: &PgRow, column: &str) -> Result<Option<Timestamp>, RepositoryError> {
    get(row, column)
}

/// A `conversations` row.
pub(crate) fn conversation(row: &PgRow) -> Result<Conversation, RepositoryError> {
    Ok(Conversation {
        id: id(row, "id")?,
        user_name: get(row, "user_name")?,
        title: get(row, "title")?,
        created_at: time(row, "created_at")?,
        updated_at: time(row, "updated_at")?,
        compressed_context: get(row, "compressed_context")?,
        compressed_at: opt_time(row, "compressed_at")?,
        compressed_through_seq: get(row, "compressed_through_seq")?,
        context_tokens: get(row, "context_tokens")?,
        model: get(row, "model_id")?,
        provisional_counts_from: get(row, "provisional_counts_from_seq")?,
    })
}

/// A `turns` row.
pub(crate) fn turn(row: &PgRow) -> Result<Turn, RepositoryError> {
    let status: String = get(row, "status")?;
    Ok(Turn {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        seq: get(row, "seq")?,
        thinking_mode: get(row, "thinking_mode")?,
        status: TurnStatus::parse(&status).map_err(|e| corrupt("status", e))?,
        error: get(row, "error")?,
        created_at: time(row, "created_at")?,
        completed_at: opt_time(row, "completed_at")?,
        lease: lease(row)?,
        undone_at: opt_time(row, "undone_at")?,
        cut: get::<Option<String>>(row, "cut")?
            .map(|word| AnswerCut::parse(&word).map_err(|e| corrupt("cut", e)))
            .transpose()?,
    })
}

/// The lease columns of a turn row: all set while it runs under a lease, else none.
fn lease(row: &PgRow) -> Result<Option<TurnLease>, RepositoryError> {
    let (Some(pid), Some(host), Some(started_at), Some(heartbeat_at)) = (
        get::<Option<i64>>(row, "owner_pid")?,
        get::<Option<String>>(row, "owner_host")?,
        opt_time(row, "owner_started_at")?,
        opt_time(row, "heartbeat_at")?,
    ) else {
        return Ok(None);
    };
    Ok(Some(TurnLease {
        owner: LeaseOwner {
            pid: u32::try_from(pid).map_err(|e| corrupt("owner_pid", e))?,
            host,
            started_at,
        },
        heartbeat_at,
    }))
}

/// A `messages` row.
pub(crate) fn message(row: &PgRow) -> Result<Message, RepositoryError> {
    let role: String = get(row, "role")?;
    Ok(Message {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        turn_id: id(row, "turn_id")?,
        seq: get(row, "seq")?,
        role: Role::parse(&role).map_err(|e| corrupt("role", e))?,
        content: get(row, "content")?,
        token_count: get(row, "token_count")?,
        created_at: time(row, "created_at")?,
        replaced_by: opt_id(row, "replaced_by")?,
        is_edited: get(row, "is_edited")?,
        attachments: Vec::new(),
    })
}

/// A `tool_calls` row.
pub(crate) fn tool_call(row: &PgRow) -> Result<ToolCall, RepositoryError> {
    let status: String = get(row, "status")?;
    Ok(ToolCall {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        turn_id: id(row, "turn_id")?,
        seq: get(row, "seq")?,
        call_id: get(row, "call_id")?,
        tool_name: get(row, "tool_name")?,
        arguments: get(row, "arguments")?,
        result: get(row, "result")?,
        status: ToolCallStatus::parse(&status).map_err(|e| corrupt("status", e))?,
        token_count: get(row, "token_count")?,
        started_at: time(row, "started_at")?,
        completed_at: opt_time(row, "completed_at")?,
    })
}
