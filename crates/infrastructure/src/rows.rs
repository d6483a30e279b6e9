//! rusqlite rows read as core's [`StoredRow`] — text, integers, flags stored as 0/1 and
//! instants as RFC 3339 text — and decoded into entities by `smallebot_core::stored_row`,
//! the decoders both stores share.

use rusqlite::Row;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    AnswerVersion, Attachment, Conversation, Message, SearchHit, SubAgentRun, ThinkBlock, ToolCall,
    Turn, TurnFileChange,
};
use smallebot_core::repository::RepoResult;
use smallebot_core::stored_row::{self, StoredRow};
use smallebot_core::time::{Timestamp, parse_timestamp};

/// A rusqlite row, read by column name.
struct Sqlite<'a, 'r>(&'a Row<'r>);

impl StoredRow for Sqlite<'_, '_> {
    fn opt_text(&self, column: &str) -> RepoResult<Option<String>> {
        self.0
            .get::<_, Option<String>>(column)
            .map_err(|e| RepositoryError::corrupt(column, e))
    }

    fn opt_int(&self, column: &str) -> RepoResult<Option<i64>> {
        self.0
            .get::<_, Option<i64>>(column)
            .map_err(|e| RepositoryError::corrupt(column, e))
    }

    fn opt_time(&self, column: &str) -> RepoResult<Option<Timestamp>> {
        self.opt_text(column)?
            .map(|raw| {
                parse_timestamp(&raw)
                    .map_err(|e| RepositoryError::corrupt(column, format!("'{raw}': {e}")))
            })
            .transpose()
    }

    fn flag(&self, column: &str) -> RepoResult<bool> {
        match self.opt_int(column)? {
            Some(value) => Ok(value != 0),
            None => Err(RepositoryError::corrupt(
                column,
                "NULL where a flag is required",
            )),
        }
    }
}

/// A row of `conversation_columns!`.
pub(crate) fn conversation(row: &Row<'_>) -> RepoResult<Conversation> {
    stored_row::conversation(&Sqlite(row))
}

/// A row of `grant_columns!`.
pub(crate) fn permission_grant(
    row: &Row<'_>,
) -> RepoResult<smallebot_core::entities::PermissionGrant> {
    stored_row::permission_grant(&Sqlite(row))
}

/// A row of `sub_agent_runs_select!`.
pub(crate) fn sub_agent_run(row: &Row<'_>) -> RepoResult<SubAgentRun> {
    stored_row::sub_agent_run(&Sqlite(row))
}

/// A row of `turn_columns!`.
pub(crate) fn turn(row: &Row<'_>) -> RepoResult<Turn> {
    stored_row::turn(&Sqlite(row))
}

/// A row of `message_columns!`, without its attachments.
pub(crate) fn message(row: &Row<'_>) -> RepoResult<Message> {
    stored_row::message(&Sqlite(row))
}

/// A row of `answer_versions`.
pub(crate) fn answer_version(row: &Row<'_>) -> RepoResult<AnswerVersion> {
    stored_row::answer_version(&Sqlite(row))
}

/// A row of `tool_call_columns!`.
pub(crate) fn tool_call(row: &Row<'_>) -> RepoResult<ToolCall> {
    stored_row::tool_call(&Sqlite(row))
}

/// A row of `think_blocks`.
pub(crate) fn think_block(row: &Row<'_>) -> RepoResult<ThinkBlock> {
    stored_row::think_block(&Sqlite(row))
}

/// A row of `attachment_columns!`.
pub(crate) fn attachment(row: &Row<'_>) -> RepoResult<Attachment> {
    stored_row::attachment(&Sqlite(row))
}

/// A row of `file_change_columns!`.
pub(crate) fn file_change(row: &Row<'_>) -> RepoResult<TurnFileChange> {
    stored_row::file_change(&Sqlite(row))
}

/// A row of `conversation_id, title, seq, kind, body, created_at`.
pub(crate) fn search_hit(row: &Row<'_>) -> RepoResult<SearchHit> {
    stored_row::search_hit(&Sqlite(row))
}

/// A row of `mcp_credential_columns!`.
pub(crate) fn mcp_credential(row: &Row<'_>) -> RepoResult<smallebot_core::entities::McpCredential> {
    stored_row::mcp_credential(&Sqlite(row))
}

/// A row of `hook_run_columns!`.
pub(crate) fn hook_run(row: &Row<'_>) -> RepoResult<smallebot_core::entities::HookRun> {
    stored_row::hook_run(&Sqlite(row))
}

/// A row of `usage_columns!`.
pub(crate) fn usage_record(row: &Row<'_>) -> RepoResult<smallebot_core::entities::UsageRecord> {
    stored_row::usage_record(&Sqlite(row))
}
