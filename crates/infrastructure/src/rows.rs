//! Decoding stored rows into entities.

use std::str::FromStr;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    AnswerCut, AnswerVersion, Attachment, AttachmentKind, Conversation, ImageSize, LeaseOwner,
    Message, Role, ThinkBlock, ToolCall, ToolCallStatus, Turn, TurnLease, TurnStatus,
};
use smallebot_core::time::{Timestamp, parse_timestamp};

/// A stored value that does not decode: what it was and why.
pub(crate) fn corrupt(what: &str, detail: impl std::fmt::Display) -> RepositoryError {
    RepositoryError::Corrupt(format!("{what}: {detail}"))
}

/// A stored row's columns, by name: what the decoders below read (implemented for
/// rusqlite's rows in `queries.rs`).
pub(crate) trait Columns {
    /// The text in `column`, `None` for NULL.
    fn opt_text(&self, column: &str) -> Result<Option<String>, RepositoryError>;
    /// The integer in `column`, `None` for NULL.
    fn opt_int(&self, column: &str) -> Result<Option<i64>, RepositoryError>;
}

fn text(row: &impl Columns, column: &str) -> Result<String, RepositoryError> {
    row.opt_text(column)?
        .ok_or_else(|| corrupt(column, "NULL where text is required"))
}

fn opt_text(row: &impl Columns, column: &str) -> Result<Option<String>, RepositoryError> {
    row.opt_text(column)
}

fn int(row: &impl Columns, column: &str) -> Result<i64, RepositoryError> {
    row.opt_int(column)?
        .ok_or_else(|| corrupt(column, "NULL where an integer is required"))
}

fn id<T: FromStr>(row: &impl Columns, column: &str) -> Result<T, RepositoryError>
where
    T::Err: std::fmt::Display,
{
    let raw = text(row, column)?;
    raw.parse::<T>().map_err(|e| corrupt(column, e))
}

fn opt_id<T: FromStr>(row: &impl Columns, column: &str) -> Result<Option<T>, RepositoryError>
where
    T::Err: std::fmt::Display,
{
    opt_text(row, column)?
        .map(|raw| raw.parse::<T>().map_err(|e| corrupt(column, e)))
        .transpose()
}

fn time(row: &impl Columns, column: &str) -> Result<Timestamp, RepositoryError> {
    let raw = text(row, column)?;
    parse_timestamp(&raw).map_err(|e| corrupt(column, format!("'{raw}': {e}")))
}

fn opt_time(row: &impl Columns, column: &str) -> Result<Option<Timestamp>, RepositoryError> {
    opt_text(row, column)?
        .map(|raw| parse_timestamp(&raw).map_err(|e| corrupt(column, format!("'{raw}': {e}"))))
        .transpose()
}

pub(crate) fn conversation(row: &impl Columns) -> Result<Conversation, RepositoryError> {
    Ok(Conversation {
        id: id(row, "id")?,
        user_name: text(row, "user_name")?,
        title: text(row, "title")?,
        created_at: time(row, "created_at")?,
        updated_at: time(row, "updated_at")?,
        compressed_context: opt_text(row, "compressed_context")?,
        compressed_at: opt_time(row, "compressed_at")?,
        compressed_through_seq: row.opt_int("compressed_through_seq")?,
        context_tokens: int(row, "context_tokens")?,
        model: opt_text(row, "model_id")?,
        provisional_counts_from: row.opt_int("provisional_counts_from_seq")?,
    })
}

pub(crate) fn turn(row: &impl Columns) -> Result<Turn, RepositoryError> {
    Ok(Turn {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        seq: int(row, "seq")?,
        thinking_mode: int(row, "thinking_mode")? != 0,
        status: TurnStatus::parse(&text(row, "status")?).map_err(|e| corrupt("status", e))?,
        error: opt_text(row, "error")?,
        created_at: time(row, "created_at")?,
        completed_at: opt_time(row, "completed_at")?,
        lease: lease(row)?,
        undone_at: opt_time(row, "undone_at")?,
        cut: opt_text(row, "cut")?
            .map(|word| AnswerCut::parse(&word).map_err(|e| corrupt("cut", e)))
            .transpose()?,
    })
}

/// The lease columns of a turn row: all set while it runs under a lease, else none.
fn lease(row: &impl Columns) -> Result<Option<TurnLease>, RepositoryError> {
    let pid = row.opt_int("owner_pid")?;
    let (Some(pid), Some(host), Some(started_at), Some(heartbeat_at)) = (
        pid,
        opt_text(row, "owner_host")?,
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

pub(crate) fn message(row: &impl Columns) -> Result<Message, RepositoryError> {
    Ok(Message {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        turn_id: id(row, "turn_id")?,
        seq: int(row, "seq")?,
        role: Role::parse(&text(row, "role")?).map_err(|e| corrupt("role", e))?,
        content: text(row, "content")?,
        token_count: int(row, "token_count")?,
        created_at: time(row, "created_at")?,
        replaced_by: opt_id(row, "replaced_by")?,
        is_edited: int(row, "is_edited")? != 0,
        attachments: Vec::new(),
    })
}

pub(crate) fn answer_version(row: &impl Columns) -> Result<AnswerVersion, RepositoryError> {
    Ok(AnswerVersion {
        conversation_id: id(row, "conversation_id")?,
        turn_id: id(row, "turn_id")?,
        message_id: id(row, "message_id")?,
        content: text(row, "content")?,
        created_at: time(row, "created_at")?,
    })
}

pub(crate) fn tool_call(row: &impl Columns) -> Result<ToolCall, RepositoryError> {
    Ok(ToolCall {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        turn_id: id(row, "turn_id")?,
        seq: int(row, "seq")?,
        call_id: text(row, "call_id")?,
        tool_name: text(row, "tool_name")?,
        arguments: text(row, "arguments")?,
        result: opt_text(row, "result")?,
        status: ToolCallStatus::parse(&text(row, "status")?).map_err(|e| corrupt("status", e))?,
        token_count: int(row, "token_count")?,
        started_at: time(row, "started_at")?,
        completed_at: opt_time(row, "completed_at")?,
    })
}

pub(crate) fn think_block(row: &impl Columns) -> Result<ThinkBlock, RepositoryError> {
    Ok(ThinkBlock {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        turn_id: id(row, "turn_id")?,
        seq: int(row, "seq")?,
        content: text(row, "content")?,
        created_at: time(row, "created_at")?,
    })
}

pub(crate) fn attachment(row: &impl Columns) -> Result<Attachment, RepositoryError> {
    let image_size = match (row.opt_int("image_width")?, row.opt_int("image_height")?) {
        (Some(width), Some(height)) => Some(ImageSize {
            width: u32::try_from(width).map_err(|e| corrupt("image_width", e))?,
            height: u32::try_from(height).map_err(|e| corrupt("image_height", e))?,
        }),
        _ => None,
    };
    Ok(Attachment {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        message_id: opt_id(row, "message_id")?,
        name: text(row, "name")?,
        media_type: text(row, "media_type")?,
        kind: AttachmentKind::parse(&text(row, "kind")?).map_err(|e| corrupt("kind", e))?,
        size: int(row, "size")?,
        sha256: text(row, "sha256")?,
        image_size,
        created_at: time(row, "created_at")?,
    })
}
