//! Reading a conversation's rows after a `seq` in one statement.
//!
//! [`ROWS_AFTER`] lets SQLite pack all three tables' rows into one result row of three
//! JSON arrays (one array of column values per stored row), decoded here into the same
//! entities as `rows.rs` decodes: one statement step instead of one per row. Should
//! the packed text exceed SQLite's string limit (a very long history of big tool
//! results), the rows are read table by table instead.

use std::str::FromStr;

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    HistoryRow, Message, Role, Seq, ThinkBlock, ToolCall, ToolCallStatus,
};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::RepoResult;
use smallebot_core::time::{Timestamp, parse_timestamp};

use crate::error::sqlite;
use crate::queries;
use crate::rows;

/// Which rows a read returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rows {
    /// Every stored row (the timeline).
    All,
    /// The rows in the context: undone turns left out.
    InContext,
}

impl Rows {
    /// The `?3` of the queries: 1 keeps undone rows.
    fn include_undone(self) -> bool {
        self == Self::All
    }
}

/// The rows of `conversation_id` after `after_seq`, in `seq` order.
pub(super) fn rows_after(
    conn: &Connection,
    conversation_id: ConversationId,
    after_seq: Seq,
    which: Rows,
) -> RepoResult<Vec<HistoryRow>> {
    const ACTION: &str = "reading history";
    let id = conversation_id.to_string();
    let params = (&id, after_seq, which.include_undone());
    let packed = conn.prepare_cached(ROWS_AFTER).and_then(|mut stmt| {
        stmt.query_row(params, |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
            ))
        })
    });
    match packed {
        Ok((messages, calls, blocks)) => decode(conversation_id, &messages, &calls, &blocks),
        Err(err) if err.to_string().contains("too big") => table_by_table(conn, params),
        Err(err) => Err(sqlite(ACTION)(err)),
    }
}

/// The same rows, read table by table.
pub(super) fn table_by_table(
    conn: &Connection,
    params: (&String, Seq, bool),
) -> RepoResult<Vec<HistoryRow>> {
    let mut out = queries::all(conn, "reading messages", MESSAGES_AFTER, params, |row| {
        rows::message(row).map(HistoryRow::Message)
    })?;
    out.extend(queries::all(
        conn,
        "reading tool calls",
        TOOL_CALLS_AFTER,
        params,
        |row| rows::tool_call(row).map(HistoryRow::ToolCall),
    )?);
    out.extend(queries::all(
        conn,
        "reading reasoning",
        THINK_BLOCKS_AFTER,
        params,
        |row| rows::think_block(row).map(HistoryRow::ThinkBlock),
    )?);
    out.sort_by_key(HistoryRow::seq);
    Ok(out)
}

/// Messages of ?1 after `seq` ?2 (undone ones only when ?3), row by row.
const MESSAGES_AFTER: &str = "\
    SELECT id, conversation_id, turn_id, seq, role, content, token_count, created_at, \
    replaced_by, is_edited FROM messages WHERE conversation_id = ?1 AND seq > ?2 \
    AND (?3 OR undone = 0)";
/// Tool calls, like [`MESSAGES_AFTER`].
const TOOL_CALLS_AFTER: &str = "\
    SELECT id, conversation_id, turn_id, seq, call_id, tool_name, arguments, result, \
    status, token_count, started_at, completed_at FROM tool_calls \
    WHERE conversation_id = ?1 AND seq > ?2 AND (?3 OR undone = 0)";
/// Think blocks, like [`MESSAGES_AFTER`].
const THINK_BLOCKS_AFTER: &str = "\
    SELECT id, conversation_id, turn_id, seq, content, created_at FROM think_blocks \
    WHERE conversation_id = ?1 AND seq > ?2 AND (?3 OR undone = 0)";

/// Messages, tool calls and think blocks of conversation ?1 after `seq` ?2 (undone ones
/// only when ?3), each as a
/// JSON array of column arrays (columns in the order of the tuples below; the
/// conversation is the one asked for).
const ROWS_AFTER: &str = "SELECT \
    (SELECT json_group_array(json_array(id, turn_id, seq, role, content, token_count, \
       created_at, replaced_by, is_edited)) \
     FROM messages WHERE conversation_id = ?1 AND seq > ?2 AND (?3 OR undone = 0)), \
    (SELECT json_group_array(json_array(id, turn_id, seq, call_id, tool_name, arguments, \
       result, status, token_count, started_at, completed_at)) \
     FROM tool_calls WHERE conversation_id = ?1 AND seq > ?2 AND (?3 OR undone = 0)), \
    (SELECT json_group_array(json_array(id, turn_id, seq, content, created_at)) \
     FROM think_blocks WHERE conversation_id = ?1 AND seq > ?2 AND (?3 OR undone = 0))";

// Ids, timestamps and words are borrowed from the JSON text (they never need JSON
// escapes); free text is owned.

/// `id, turn_id, seq, role, content, token_count, created_at, replaced_by, is_edited`
type MessageColumns<'a> = (
    &'a str,
    &'a str,
    i64,
    &'a str,
    String,
    i64,
    &'a str,
    Option<&'a str>,
    i64,
);

/// `id, turn_id, seq, call_id, tool_name, arguments, result, status, token_count,
/// started_at, completed_at`
type ToolCallColumns<'a> = (
    &'a str,
    &'a str,
    i64,
    String,
    String,
    String,
    Option<String>,
    &'a str,
    i64,
    &'a str,
    Option<&'a str>,
);

/// `id, turn_id, seq, content, created_at`
type ThinkBlockColumns<'a> = (&'a str, &'a str, i64, String, &'a str);

fn id<T: FromStr>(raw: &str, column: &str) -> Result<T, RepositoryError>
where
    T::Err: std::fmt::Display,
{
    raw.parse::<T>()
        .map_err(|e| RepositoryError::corrupt(column, e))
}

fn time(raw: &str, column: &str) -> Result<Timestamp, RepositoryError> {
    parse_timestamp(raw).map_err(|e| RepositoryError::corrupt(column, format!("'{raw}': {e}")))
}

fn message(
    conversation_id: ConversationId,
    c: MessageColumns<'_>,
) -> Result<HistoryRow, RepositoryError> {
    Ok(HistoryRow::Message(Message {
        id: id(c.0, "id")?,
        conversation_id,
        turn_id: id(c.1, "turn_id")?,
        seq: c.2,
        role: Role::parse(c.3).map_err(|e| RepositoryError::corrupt("role", e))?,
        content: c.4,
        token_count: c.5,
        created_at: time(c.6, "created_at")?,
        replaced_by: c.7.map(|r| id(r, "replaced_by")).transpose()?,
        is_edited: c.8 != 0,
        attachments: Vec::new(),
    }))
}

fn tool_call(
    conversation_id: ConversationId,
    c: ToolCallColumns<'_>,
) -> Result<HistoryRow, RepositoryError> {
    Ok(HistoryRow::ToolCall(ToolCall {
        id: id(c.0, "id")?,
        conversation_id,
        turn_id: id(c.1, "turn_id")?,
        seq: c.2,
        call_id: c.3,
        tool_name: c.4,
        arguments: c.5,
        result: c.6,
        status: ToolCallStatus::parse(c.7).map_err(|e| RepositoryError::corrupt("status", e))?,
        token_count: c.8,
        started_at: time(c.9, "started_at")?,
        completed_at: c.10.map(|t| time(t, "completed_at")).transpose()?,
    }))
}

fn think_block(
    conversation_id: ConversationId,
    c: ThinkBlockColumns<'_>,
) -> Result<HistoryRow, RepositoryError> {
    Ok(HistoryRow::ThinkBlock(ThinkBlock {
        id: id(c.0, "id")?,
        conversation_id,
        turn_id: id(c.1, "turn_id")?,
        seq: c.2,
        content: c.3,
        created_at: time(c.4, "created_at")?,
    }))
}

/// Decodes the three arrays of [`ROWS_AFTER`] into `conversation_id`'s rows in `seq`
/// order.
fn decode(
    conversation_id: ConversationId,
    messages: &str,
    tool_calls: &str,
    think_blocks: &str,
) -> Result<Vec<HistoryRow>, RepositoryError> {
    let messages: Vec<MessageColumns<'_>> =
        serde_json::from_str(messages).map_err(|e| RepositoryError::corrupt("messages", e))?;
    let tool_calls: Vec<ToolCallColumns<'_>> =
        serde_json::from_str(tool_calls).map_err(|e| RepositoryError::corrupt("tool_calls", e))?;
    let think_blocks: Vec<ThinkBlockColumns<'_>> = serde_json::from_str(think_blocks)
        .map_err(|e| RepositoryError::corrupt("think_blocks", e))?;
    let mut rows = Vec::with_capacity(messages.len() + tool_calls.len() + think_blocks.len());
    for columns in messages {
        rows.push(message(conversation_id, columns)?);
    }
    for columns in tool_calls {
        rows.push(tool_call(conversation_id, columns)?);
    }
    for columns in think_blocks {
        rows.push(think_block(conversation_id, columns)?);
    }
    rows.sort_by_key(HistoryRow::seq);
    Ok(rows)
}

#[cfg(test)]
#[path = "bulk_tests.rs"]
mod tests;
