//! Reading the stored entities back, once for both stores: a store hands a row of the
//! columns listed in [`crate::columns`] as a [`StoredRow`] (its engine's way of
//! reading a text, an integer, a flag or an instant), and the decoders here build the
//! entity — the stored words parsed by the entities' own `parse`, a lease only with all
//! its four columns, an image size only with both, and every value that does not fit
//! refused with [`RepositoryError::corrupt`] naming its column.

use std::str::FromStr;

mod grant;
mod hook_run;
mod mcp_credential;
mod sub_agent_run;
pub use grant::{grant_rules_text, permission_grant, user_rules};
pub use hook_run::hook_run;
pub use mcp_credential::mcp_credential;
pub use sub_agent_run::sub_agent_run;

use crate::RepositoryError;
use crate::entities::{
    AnswerCut, AnswerVersion, Attachment, AttachmentKind, Conversation, ImageSize, LeaseOwner,
    Message, Role, SearchHit, SearchHitKind, SubAgentLink, ThinkBlock, TokenCounts, ToolCall,
    ToolCallStatus, Turn, TurnFileChange, TurnLease, TurnStatus, UsageAccount, UsageOutcome,
    UsagePurpose, UsageRecord,
};
use crate::ids::ConversationId;
use crate::repository::RepoResult;
use crate::rules::checkpoint::{ChangeKind, FileChange, FileState};
use crate::time::Timestamp;

/// A stored row's columns, read by name in its engine's types.
pub trait StoredRow {
    /// The text in `column`, `None` for NULL.
    ///
    /// # Errors
    /// [`RepositoryError::Corrupt`] when the column is missing or holds no text.
    fn opt_text(&self, column: &str) -> RepoResult<Option<String>>;

    /// The integer in `column`, `None` for NULL.
    ///
    /// # Errors
    /// [`RepositoryError::Corrupt`] when the column is missing or holds no integer.
    fn opt_int(&self, column: &str) -> RepoResult<Option<i64>>;

    /// The instant in `column`, `None` for NULL.
    ///
    /// # Errors
    /// [`RepositoryError::Corrupt`] when the column is missing or holds no instant.
    fn opt_time(&self, column: &str) -> RepoResult<Option<Timestamp>>;

    /// The yes/no flag in `column`.
    ///
    /// # Errors
    /// [`RepositoryError::Corrupt`] when the column is missing, NULL or holds no flag.
    fn flag(&self, column: &str) -> RepoResult<bool>;
}

fn text(row: &impl StoredRow, column: &str) -> RepoResult<String> {
    row.opt_text(column)?
        .ok_or_else(|| RepositoryError::corrupt(column, "NULL where text is required"))
}

fn int(row: &impl StoredRow, column: &str) -> RepoResult<i64> {
    row.opt_int(column)?
        .ok_or_else(|| RepositoryError::corrupt(column, "NULL where an integer is required"))
}

fn time(row: &impl StoredRow, column: &str) -> RepoResult<Timestamp> {
    row.opt_time(column)?
        .ok_or_else(|| RepositoryError::corrupt(column, "NULL where an instant is required"))
}

fn id<T: FromStr>(row: &impl StoredRow, column: &str) -> RepoResult<T>
where
    T::Err: std::fmt::Display,
{
    text(row, column)?
        .parse::<T>()
        .map_err(|e| RepositoryError::corrupt(column, e))
}

fn opt_id<T: FromStr>(row: &impl StoredRow, column: &str) -> RepoResult<Option<T>>
where
    T::Err: std::fmt::Display,
{
    row.opt_text(column)?
        .map(|raw| {
            raw.parse::<T>()
                .map_err(|e| RepositoryError::corrupt(column, e))
        })
        .transpose()
}

fn u32_of(column: &str, value: i64) -> RepoResult<u32> {
    u32::try_from(value).map_err(|e| RepositoryError::corrupt(column, e))
}

/// A row of [`conversation_columns!`](crate::conversation_columns).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn conversation(row: &impl StoredRow) -> RepoResult<Conversation> {
    Ok(Conversation {
        id: id(row, "id")?,
        user_name: text(row, "user_name")?,
        title: text(row, "title")?,
        created_at: time(row, "created_at")?,
        updated_at: time(row, "updated_at")?,
        compressed_context: row.opt_text("compressed_context")?,
        compressed_at: row.opt_time("compressed_at")?,
        compressed_through_seq: row.opt_int("compressed_through_seq")?,
        context_tokens: int(row, "context_tokens")?,
        model: row.opt_text("model_id")?,
        provisional_counts_from: row.opt_int("provisional_counts_from_seq")?,
        parent: sub_agent_link(row)?,
    })
}

/// The three link columns of a sub-agent's conversation: all set, or none.
fn sub_agent_link(row: &impl StoredRow) -> RepoResult<Option<SubAgentLink>> {
    let parent = opt_id::<ConversationId>(row, "parent_conversation_id")?;
    let call = row.opt_text("parent_tool_call_id")?;
    let agent = row.opt_text("agent_name")?;
    match (parent, call, agent) {
        (None, None, None) => Ok(None),
        (Some(parent_conversation_id), Some(parent_tool_call_id), Some(agent_name)) => {
            Ok(Some(SubAgentLink {
                parent_conversation_id,
                parent_tool_call_id,
                agent_name,
            }))
        }
        _ => Err(RepositoryError::corrupt(
            "parent_conversation_id",
            "a sub-agent link needs its parent, tool call and agent together",
        )),
    }
}

/// A row of [`turn_columns!`](crate::turn_columns).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn turn(row: &impl StoredRow) -> RepoResult<Turn> {
    Ok(Turn {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        seq: int(row, "seq")?,
        thinking_mode: row.flag("thinking_mode")?,
        status: TurnStatus::parse(&text(row, "status")?)
            .map_err(|e| RepositoryError::corrupt("status", e))?,
        error: row.opt_text("error")?,
        created_at: time(row, "created_at")?,
        completed_at: row.opt_time("completed_at")?,
        lease: lease(row)?,
        undone_at: row.opt_time("undone_at")?,
        cut: row
            .opt_text("cut")?
            .map(|word| AnswerCut::parse(&word).map_err(|e| RepositoryError::corrupt("cut", e)))
            .transpose()?,
    })
}

/// A row of `file_change_columns!` (the stores read it without the table's name).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not fit: an unknown kind,
/// a negative size, a digest without its size or a size without its digest.
pub fn file_change(row: &impl StoredRow) -> RepoResult<TurnFileChange> {
    let kind = text(row, "kind")?;
    Ok(TurnFileChange {
        turn_id: id(row, "turn_id")?,
        change: FileChange {
            path: text(row, "path")?,
            from: row.opt_text("from_path")?,
            kind: ChangeKind::parse(&kind).ok_or_else(|| {
                RepositoryError::corrupt("kind", format!("'{kind}' is not a kind of change"))
            })?,
            before: file_state(row, "sha256_before", "size_before")?,
            after: file_state(row, "sha256_after", "size_after")?,
        },
        not_captured: row.opt_text("not_captured")?,
        rewind: row.opt_text("rewind_id")?,
    })
}

/// A file's state as its digest and size columns are written (NULL, NULL: no file), for
/// both stores' writes of `turn_file_changes`.
///
/// # Errors
/// [`RepositoryError::Conflict`] for a size no integer column holds.
pub fn file_state_columns(state: Option<&FileState>) -> RepoResult<(Option<&str>, Option<i64>)> {
    state.map_or(Ok((None, None)), |state| {
        let size = i64::try_from(state.size).map_err(|_| {
            RepositoryError::Conflict(format!("a size of {} bytes cannot be stored", state.size))
        })?;
        Ok((Some(state.sha256.as_str()), Some(size)))
    })
}

/// A file's state from its digest and size columns: both or neither.
fn file_state(row: &impl StoredRow, digest: &str, size: &str) -> RepoResult<Option<FileState>> {
    match (row.opt_text(digest)?, row.opt_int(size)?) {
        (None, None) => Ok(None),
        (Some(sha256), Some(bytes)) => Ok(Some(FileState {
            sha256,
            size: u64::try_from(bytes)
                .map_err(|_| RepositoryError::corrupt(size, format!("{bytes} is negative")))?,
        })),
        (Some(_), None) => Err(RepositoryError::corrupt(size, "NULL beside a digest")),
        (None, Some(_)) => Err(RepositoryError::corrupt(digest, "NULL beside a size")),
    }
}

/// The lease columns of a turn row: all set while it runs under a lease, else none.
fn lease(row: &impl StoredRow) -> RepoResult<Option<TurnLease>> {
    let (Some(pid), Some(host), Some(started_at), Some(heartbeat_at)) = (
        row.opt_int("owner_pid")?,
        row.opt_text("owner_host")?,
        row.opt_time("owner_started_at")?,
        row.opt_time("heartbeat_at")?,
    ) else {
        return Ok(None);
    };
    Ok(Some(TurnLease {
        owner: LeaseOwner {
            pid: u32_of("owner_pid", pid)?,
            host,
            started_at,
        },
        heartbeat_at,
    }))
}

/// A row of [`message_columns!`](crate::message_columns), without its attachments
/// (the store reads them apart).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn message(row: &impl StoredRow) -> RepoResult<Message> {
    Ok(Message {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        turn_id: id(row, "turn_id")?,
        seq: int(row, "seq")?,
        role: Role::parse(&text(row, "role")?).map_err(|e| RepositoryError::corrupt("role", e))?,
        content: text(row, "content")?,
        token_count: int(row, "token_count")?,
        created_at: time(row, "created_at")?,
        replaced_by: opt_id(row, "replaced_by")?,
        is_edited: row.flag("is_edited")?,
        attachments: Vec::new(),
    })
}

/// A row of [`tool_call_columns!`](crate::tool_call_columns).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn tool_call(row: &impl StoredRow) -> RepoResult<ToolCall> {
    Ok(ToolCall {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        turn_id: id(row, "turn_id")?,
        seq: int(row, "seq")?,
        call_id: text(row, "call_id")?,
        tool_name: text(row, "tool_name")?,
        arguments: text(row, "arguments")?,
        result: row.opt_text("result")?,
        status: ToolCallStatus::parse(&text(row, "status")?)
            .map_err(|e| RepositoryError::corrupt("status", e))?,
        token_count: int(row, "token_count")?,
        started_at: time(row, "started_at")?,
        completed_at: row.opt_time("completed_at")?,
    })
}

/// A row of [`attachment_columns!`](crate::attachment_columns) (read by their names
/// without the table's `a.`).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn attachment(row: &impl StoredRow) -> RepoResult<Attachment> {
    let image_size = match (row.opt_int("image_width")?, row.opt_int("image_height")?) {
        (Some(width), Some(height)) => Some(ImageSize {
            width: u32_of("image_width", width)?,
            height: u32_of("image_height", height)?,
        }),
        _ => None,
    };
    Ok(Attachment {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        message_id: opt_id(row, "message_id")?,
        name: text(row, "name")?,
        media_type: text(row, "media_type")?,
        kind: AttachmentKind::parse(&text(row, "kind")?)
            .map_err(|e| RepositoryError::corrupt("kind", e))?,
        size: int(row, "size")?,
        sha256: text(row, "sha256")?,
        image_size,
        created_at: time(row, "created_at")?,
    })
}

/// A row of `conversation_id, turn_id, message_id, content, created_at` of
/// `answer_versions`.
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn answer_version(row: &impl StoredRow) -> RepoResult<AnswerVersion> {
    Ok(AnswerVersion {
        conversation_id: id(row, "conversation_id")?,
        turn_id: id(row, "turn_id")?,
        message_id: id(row, "message_id")?,
        content: text(row, "content")?,
        created_at: time(row, "created_at")?,
    })
}

/// A row of `id, conversation_id, turn_id, seq, content, created_at` of
/// `think_blocks`.
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn think_block(row: &impl StoredRow) -> RepoResult<ThinkBlock> {
    Ok(ThinkBlock {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        turn_id: id(row, "turn_id")?,
        seq: int(row, "seq")?,
        content: text(row, "content")?,
        created_at: time(row, "created_at")?,
    })
}

/// A search hit of the columns `conversation_id, title, seq, kind, body, created_at`
/// (`kind` one of [`SearchHitKind`]'s stored words).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn search_hit(row: &impl StoredRow) -> RepoResult<SearchHit> {
    Ok(SearchHit {
        conversation_id: id(row, "conversation_id")?,
        conversation_title: text(row, "title")?,
        seq: int(row, "seq")?,
        kind: SearchHitKind::parse(&text(row, "kind")?)
            .map_err(|e| RepositoryError::corrupt("kind", e))?,
        text: text(row, "body")?,
        created_at: time(row, "created_at")?,
    })
}

#[cfg(test)]
#[path = "stored_row_tests.rs"]
mod tests;

fn count(column: &str, value: i64) -> RepoResult<u64> {
    u64::try_from(value).map_err(|e| RepositoryError::corrupt(column, e))
}

/// A row of [`usage_columns!`](crate::usage_columns).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn usage_record(row: &impl StoredRow) -> RepoResult<UsageRecord> {
    let tokens = match row.opt_int("prompt_tokens")? {
        None => None,
        Some(prompt) => Some(TokenCounts {
            prompt: count("prompt_tokens", prompt)?,
            cached_prompt: count("cached_prompt_tokens", int(row, "cached_prompt_tokens")?)?,
            completion: count("completion_tokens", int(row, "completion_tokens")?)?,
            reasoning: count("reasoning_tokens", int(row, "reasoning_tokens")?)?,
        }),
    };
    Ok(UsageRecord {
        account: UsageAccount {
            user_name: text(row, "user_name")?,
            conversation_id: id(row, "conversation_id")?,
            turn_id: opt_id(row, "turn_id")?,
            sub_conversation_id: opt_id(row, "sub_conversation_id")?,
            step: u32_of("step", int(row, "step")?)?,
        },
        purpose: UsagePurpose::parse(&text(row, "purpose")?)
            .map_err(|e| RepositoryError::corrupt("purpose", e))?,
        model: text(row, "model")?,
        tokens,
        cost: row.opt_int("cost_picos")?,
        currency: row.opt_text("currency")?,
        first_token_ms: row
            .opt_int("first_token_ms")?
            .map(|ms| count("first_token_ms", ms))
            .transpose()?,
        duration_ms: count("duration_ms", int(row, "duration_ms")?)?,
        retries: u32_of("retries", int(row, "retries")?)?,
        outcome: UsageOutcome::parse(&text(row, "outcome")?)
            .map_err(|e| RepositoryError::corrupt("outcome", e))?,
        at: time(row, "ended_at")?,
    })
}
