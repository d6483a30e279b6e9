//! The store's statements on rusqlite connections that read: shared by the writer
//! (the checks inside a write) and the read pool.

use rusqlite::{Connection, Params, Row};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    Attachment, Conversation, HistoryRow, Message, Role, Turn, TurnContents,
};
use smallebot_core::ids::{AttachmentId, ConversationId, MessageId, TurnId};
use smallebot_core::repository::RepoResult;

use smallebot_core::rules::attachment_link::{hand_out, user_seq_span};

use crate::error::sqlite;
use crate::rows::{self, Columns, corrupt};

/// The columns of a conversation, as `rows::conversation` reads them.
macro_rules! conversation_columns {
    () => {
        "id, user_name, title, created_at, updated_at, compressed_context, compressed_at, \
         compressed_through_seq, context_tokens, model_id, provisional_counts_from_seq"
    };
}
pub(crate) use conversation_columns;

/// The columns of a turn, as `rows::turn` reads them.
macro_rules! turn_columns {
    () => {
        "id, conversation_id, seq, thinking_mode, status, error, created_at, completed_at, \
         owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at, cut"
    };
}
pub(crate) use turn_columns;

/// The columns of a message, as `rows::message` reads them.
macro_rules! message_columns {
    () => {
        "id, conversation_id, turn_id, seq, role, content, token_count, created_at, \
         replaced_by, is_edited"
    };
}

/// The columns of an attachment (of `attachments a`), as `rows::attachment` reads them.
macro_rules! attachment_columns {
    () => {
        "a.id, a.conversation_id, a.message_id, a.name, a.media_type, a.kind, a.size, \
         a.sha256, a.image_width, a.image_height, a.created_at"
    };
}
pub(crate) use attachment_columns;

/// The columns of a tool call, as `rows::tool_call` reads them.
macro_rules! tool_call_columns {
    () => {
        "id, conversation_id, turn_id, seq, call_id, tool_name, arguments, result, status, \
         token_count, started_at, completed_at"
    };
}
pub(crate) use tool_call_columns;

impl Columns for Row<'_> {
    fn opt_text(&self, column: &str) -> Result<Option<String>, RepositoryError> {
        self.get::<_, Option<String>>(column)
            .map_err(|e| corrupt(column, e))
    }

    fn opt_int(&self, column: &str) -> Result<Option<i64>, RepositoryError> {
        self.get::<_, Option<i64>>(column)
            .map_err(|e| corrupt(column, e))
    }
}

/// Every row `sql` returns for `params`, decoded (a cached statement).
pub(crate) fn all<T>(
    conn: &Connection,
    action: &'static str,
    sql: &str,
    params: impl Params,
    decode: impl Fn(&Row<'_>) -> RepoResult<T>,
) -> RepoResult<Vec<T>> {
    let mut stmt = conn.prepare_cached(sql).map_err(sqlite(action))?;
    let mut rows = stmt.query(params).map_err(sqlite(action))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(sqlite(action))? {
        out.push(decode(row)?);
    }
    Ok(out)
}

/// The first row `sql` returns for `params`, decoded, if any.
pub(crate) fn first<T>(
    conn: &Connection,
    action: &'static str,
    sql: &str,
    params: impl Params,
    decode: impl Fn(&Row<'_>) -> RepoResult<T>,
) -> RepoResult<Option<T>> {
    let mut stmt = conn.prepare_cached(sql).map_err(sqlite(action))?;
    let mut rows = stmt.query(params).map_err(sqlite(action))?;
    match rows.next().map_err(sqlite(action))? {
        Some(row) => decode(row).map(Some),
        None => Ok(None),
    }
}

/// Runs a statement that returns no rows; how many rows it changed.
pub(crate) fn execute(
    conn: &Connection,
    action: &'static str,
    sql: &str,
    params: impl Params,
) -> RepoResult<usize> {
    conn.prepare_cached(sql)
        .and_then(|mut stmt| stmt.execute(params))
        .map_err(sqlite(action))
}

/// The integer in the first column.
pub(crate) fn int0(row: &Row<'_>) -> RepoResult<i64> {
    row.get::<_, i64>(0).map_err(|e| corrupt("value", e))
}

/// The conversation `id`.
pub(crate) fn conversation(
    conn: &Connection,
    id: ConversationId,
) -> RepoResult<Option<Conversation>> {
    first(
        conn,
        "reading a conversation",
        concat!(
            "SELECT ",
            conversation_columns!(),
            " FROM conversations WHERE id = ?1"
        ),
        [id.to_string()],
        |row| rows::conversation(row),
    )
}

/// The turn `id`.
pub(crate) fn turn(conn: &Connection, id: TurnId) -> RepoResult<Option<Turn>> {
    first(
        conn,
        "reading a turn",
        concat!("SELECT ", turn_columns!(), " FROM turns WHERE id = ?1"),
        [id.to_string()],
        |row| rows::turn(row),
    )
}

/// The message `id`, with its attachments.
pub(crate) fn message(conn: &Connection, id: MessageId) -> RepoResult<Option<Message>> {
    let found = first(
        conn,
        "reading a message",
        concat!(
            "SELECT ",
            message_columns!(),
            " FROM messages WHERE id = ?1"
        ),
        [id.to_string()],
        |row| rows::message(row),
    )?;
    let Some(mut message) = found else {
        return Ok(None);
    };
    if message.role == Role::User {
        message.attachments = message_attachments(conn, message.id)?;
    }
    Ok(Some(message))
}

/// The attachment `id`.
pub(crate) fn attachment(conn: &Connection, id: AttachmentId) -> RepoResult<Option<Attachment>> {
    first(
        conn,
        "reading an attachment",
        concat!(
            "SELECT ",
            attachment_columns!(),
            " FROM attachments a WHERE a.id = ?1"
        ),
        [id.to_string()],
        |row| rows::attachment(row),
    )
}

/// The attachments of message `id`, in upload order.
pub(crate) fn message_attachments(conn: &Connection, id: MessageId) -> RepoResult<Vec<Attachment>> {
    all(
        conn,
        "reading a message's attachments",
        concat!(
            "SELECT ",
            attachment_columns!(),
            " FROM attachments a WHERE a.message_id = ?1 ORDER BY a.rowid"
        ),
        [id.to_string()],
        |row| rows::attachment(row),
    )
}

/// Gives the user messages among `messages` (all of one conversation) their
/// attachments: one indexed query over the span of their `seq`, none without a user
/// message (a conversation without attachments finds nothing at once).
pub(crate) fn fill_attachments<'a>(
    conn: &Connection,
    messages: impl IntoIterator<Item = &'a mut Message>,
) -> RepoResult<()> {
    let Some((mut users, low, high)) = user_seq_span(messages) else {
        return Ok(());
    };
    let found = all(
        conn,
        "reading messages' attachments",
        concat!(
            "SELECT ",
            attachment_columns!(),
            " FROM attachments a JOIN messages m ON m.id = a.message_id \
             WHERE a.conversation_id = ?1 AND a.message_id IS NOT NULL \
             AND m.seq BETWEEN ?2 AND ?3 ORDER BY a.rowid"
        ),
        (users[0].conversation_id.to_string(), low, high),
        |row| rows::attachment(row),
    )?;
    hand_out(&mut users, found);
    Ok(())
}

/// [`fill_attachments`] for the messages among history rows.
pub(crate) fn fill_row_attachments(conn: &Connection, rows: &mut [HistoryRow]) -> RepoResult<()> {
    fill_attachments(
        conn,
        rows.iter_mut().filter_map(|row| match row {
            HistoryRow::Message(m) => Some(m),
            _ => None,
        }),
    )
}

/// A turn with its messages and the `seq` of its last row.
pub(crate) fn turn_contents(conn: &Connection, id: TurnId) -> RepoResult<Option<TurnContents>> {
    let Some(turn) = self::turn(conn, id)? else {
        return Ok(None);
    };
    let mut messages = all(
        conn,
        "reading a turn's messages",
        concat!(
            "SELECT ",
            message_columns!(),
            " FROM messages WHERE turn_id = ?1 ORDER BY seq"
        ),
        [id.to_string()],
        |row| rows::message(row),
    )?;
    fill_attachments(conn, &mut messages)?;
    let last_row_seq = first(
        conn,
        "reading a turn's rows",
        "SELECT MAX(seq) FROM (SELECT seq FROM messages WHERE turn_id = ?1 \
         UNION ALL SELECT seq FROM tool_calls WHERE turn_id = ?1 \
         UNION ALL SELECT seq FROM think_blocks WHERE turn_id = ?1)",
        [id.to_string()],
        |row| row.get::<_, Option<i64>>(0).map_err(|e| corrupt("seq", e)),
    )?
    .flatten();
    Ok(Some(TurnContents {
        turn,
        messages,
        last_row_seq,
    }))
}

/// The running turns of one conversation, or of all, oldest first.
pub(crate) fn running_turns(
    conn: &Connection,
    conversation_id: Option<ConversationId>,
) -> RepoResult<Vec<Turn>> {
    all(
        conn,
        "listing running turns",
        concat!(
            "SELECT ",
            turn_columns!(),
            " FROM turns WHERE status = 'running' AND (?1 IS NULL OR conversation_id = ?1) \
             ORDER BY created_at"
        ),
        [conversation_id.map(|id| id.to_string())],
        |row| rows::turn(row),
    )
}

/// The text in the first column.
pub(crate) fn text0(row: &Row<'_>) -> RepoResult<String> {
    row.get::<_, String>(0).map_err(|e| corrupt("value", e))
}
