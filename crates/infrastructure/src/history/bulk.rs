//! Reading a conversation's rows after a `seq` in one round trip.
//!
//! sqlx hands every result row from its SQLite thread to the caller's task on its own,
//! and each hand-over can cost a thread wake-up: loading a few hundred rows row by row
//! cost about a millisecond. [`ROWS_AFTER`] lets SQLite pack all three tables' rows
//! into one result row of three JSON arrays (one array of column values per stored
//! row), decoded here into the same entities as `rows.rs` decodes. Should the packed
//! text exceed SQLite's string limit (a very long history of big tool results), the
//! rows are read one by one instead.

use std::str::FromStr;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, Message, Role, Seq, ThinkBlock, ToolCall, ToolCallStatus,
};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::RepoResult;
use smallebot_core::time::{Timestamp, parse_timestamp};
use sqlx::{Row, SqliteConnection};

use crate::rows;
use crate::tx::storage;

/// The rows of `conversation_id` after `after_seq`, in `seq` order.
pub(super) async fn rows_after(
    conn: &mut SqliteConnection,
    conversation_id: ConversationId,
    after_seq: Seq,
) -> RepoResult<Vec<HistoryRow>> {
    let id = conversation_id.to_string();
    let packed = sqlx::query(ROWS_AFTER)
        .bind(&id)
        .bind(after_seq)
        .fetch_one(&mut *conn)
        .await;
    match packed {
        Ok(row) => {
            let column = |i: usize| {
                row.try_get::<String, _>(i)
                    .map_err(|e| corrupt("history rows", e))
            };
            decode(&column(0)?, &column(1)?, &column(2)?)
        }
        Err(sqlx::Error::Database(db)) if db.message().contains("too big") => {
            one_by_one(conn, &id, after_seq).await
        }
        Err(err) => Err(storage("reading history")(err)),
    }
}

/// The same rows, read row by row.
async fn one_by_one(
    conn: &mut SqliteConnection,
    id: &str,
    after_seq: Seq,
) -> RepoResult<Vec<HistoryRow>> {
    let messages = sqlx::query(
        "SELECT id, conversation_id, turn_id, seq, role, content, token_count, created_at, \
         replaced_by, is_edited FROM messages WHERE conversation_id = ?1 AND seq > ?2",
    )
    .bind(id)
    .bind(after_seq)
    .fetch_all(&mut *conn)
    .await
    .map_err(storage("reading messages"))?;
    let calls = sqlx::query(
        "SELECT id, conversation_id, turn_id, seq, call_id, tool_name, arguments, result, \
         status, token_count, started_at, completed_at FROM tool_calls \
         WHERE conversation_id = ?1 AND seq > ?2",
    )
    .bind(id)
    .bind(after_seq)
    .fetch_all(&mut *conn)
    .await
    .map_err(storage("reading tool calls"))?;
    let blocks = sqlx::query(
        "SELECT id, conversation_id, turn_id, seq, content, created_at FROM think_blocks \
         WHERE conversation_id = ?1 AND seq > ?2",
    )
    .bind(id)
    .bind(after_seq)
    .fetch_all(&mut *conn)
    .await
    .map_err(storage("reading reasoning"))?;
    let mut out = Vec::with_capacity(messages.len() + calls.len() + blocks.len());
    for row in &messages {
        out.push(HistoryRow::Message(rows::message(row)?));
    }
    for row in &calls {
        out.push(HistoryRow::ToolCall(rows::tool_call(row)?));
    }
    for row in &blocks {
        out.push(HistoryRow::ThinkBlock(rows::think_block(row)?));
    }
    out.sort_by_key(HistoryRow::seq);
    Ok(out)
}

/// Messages, tool calls and think blocks of conversation ?1 after `seq` ?2, each as a
/// JSON array of column arrays (columns in the order of the tuples below).
const ROWS_AFTER: &str = "SELECT \
    (SELECT json_group_array(json_array(id, conversation_id, turn_id, seq, role, content, \
       token_count, created_at, replaced_by, is_edited)) \
     FROM messages WHERE conversation_id = ?1 AND seq > ?2), \
    (SELECT json_group_array(json_array(id, conversation_id, turn_id, seq, call_id, tool_name, \
       arguments, result, status, token_count, started_at, completed_at)) \
     FROM tool_calls WHERE conversation_id = ?1 AND seq > ?2), \
    (SELECT json_group_array(json_array(id, conversation_id, turn_id, seq, content, created_at)) \
     FROM think_blocks WHERE conversation_id = ?1 AND seq > ?2)";

/// `id, conversation_id, turn_id, seq, role, content, token_count, created_at,
/// replaced_by, is_edited`
type MessageColumns = (
    String,
    String,
    String,
    i64,
    String,
    String,
    i64,
    String,
    Option<String>,
    i64,
);

/// `id, conversation_id, turn_id, seq, call_id, tool_name, arguments, result, status,
/// token_count, started_at, completed_at`
type ToolCallColumns = (
    String,
    String,
    String,
    i64,
    String,
    String,
    String,
    Option<String>,
    String,
    i64,
    String,
    Option<String>,
);

/// `id, conversation_id, turn_id, seq, content, created_at`
type ThinkBlockColumns = (String, String, String, i64, String, String);

fn corrupt(what: &str, detail: impl std::fmt::Display) -> RepositoryError {
    RepositoryError::Corrupt(format!("{what}: {detail}"))
}

fn id<T: FromStr>(raw: &str, column: &str) -> Result<T, RepositoryError>
where
    T::Err: std::fmt::Display,
{
    raw.parse::<T>().map_err(|e| corrupt(column, e))
}

fn time(raw: &str, column: &str) -> Result<Timestamp, RepositoryError> {
    parse_timestamp(raw).map_err(|e| corrupt(column, format!("'{raw}': {e}")))
}

fn message(c: MessageColumns) -> Result<HistoryRow, RepositoryError> {
    Ok(HistoryRow::Message(Message {
        id: id(&c.0, "id")?,
        conversation_id: id(&c.1, "conversation_id")?,
        turn_id: id(&c.2, "turn_id")?,
        seq: c.3,
        role: Role::parse(&c.4).map_err(|e| corrupt("role", e))?,
        content: c.5,
        token_count: c.6,
        created_at: time(&c.7, "created_at")?,
        replaced_by: c.8.as_deref().map(|r| id(r, "replaced_by")).transpose()?,
        is_edited: c.9 != 0,
    }))
}

fn tool_call(c: ToolCallColumns) -> Result<HistoryRow, RepositoryError> {
    Ok(HistoryRow::ToolCall(ToolCall {
        id: id(&c.0, "id")?,
        conversation_id: id(&c.1, "conversation_id")?,
        turn_id: id(&c.2, "turn_id")?,
        seq: c.3,
        call_id: c.4,
        tool_name: c.5,
        arguments: c.6,
        result: c.7,
        status: ToolCallStatus::parse(&c.8).map_err(|e| corrupt("status", e))?,
        token_count: c.9,
        started_at: time(&c.10, "started_at")?,
        completed_at: c
            .11
            .as_deref()
            .map(|t| time(t, "completed_at"))
            .transpose()?,
    }))
}

fn think_block(c: ThinkBlockColumns) -> Result<HistoryRow, RepositoryError> {
    Ok(HistoryRow::ThinkBlock(ThinkBlock {
        id: id(&c.0, "id")?,
        conversation_id: id(&c.1, "conversation_id")?,
        turn_id: id(&c.2, "turn_id")?,
        seq: c.3,
        content: c.4,
        created_at: time(&c.5, "created_at")?,
    }))
}

/// Decodes the three arrays of [`ROWS_AFTER`] into rows in `seq` order.
fn decode(
    messages: &str,
    tool_calls: &str,
    think_blocks: &str,
) -> Result<Vec<HistoryRow>, RepositoryError> {
    let messages: Vec<MessageColumns> =
        serde_json::from_str(messages).map_err(|e| corrupt("messages", e))?;
    let tool_calls: Vec<ToolCallColumns> =
        serde_json::from_str(tool_calls).map_err(|e| corrupt("tool_calls", e))?;
    let think_blocks: Vec<ThinkBlockColumns> =
        serde_json::from_str(think_blocks).map_err(|e| corrupt("think_blocks", e))?;
    let mut rows = Vec::with_capacity(messages.len() + tool_calls.len() + think_blocks.len());
    for columns in messages {
        rows.push(message(columns)?);
    }
    for columns in tool_calls {
        rows.push(tool_call(columns)?);
    }
    for columns in think_blocks {
        rows.push(think_block(columns)?);
    }
    rows.sort_by_key(HistoryRow::seq);
    Ok(rows)
}
