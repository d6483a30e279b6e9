//! PostgreSQL rows read as core's [`StoredRow`] — text, `BIGINT`s, `BOOLEAN` flags and
//! `TIMESTAMPTZ` instants — and decoded into entities by `smallebot_core::stored_row`,
//! the decoders both stores share.

use std::str::FromStr;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    AnswerVersion, Attachment, Conversation, Message, SearchHit, SubAgentRun, ToolCall, Turn,
};
use smallebot_core::repository::RepoResult;
use smallebot_core::stored_row::{self, StoredRow};
use smallebot_core::time::Timestamp;
use sqlx::Row;
use sqlx::postgres::PgRow;

/// A column of any type sqlx decodes from PostgreSQL.
pub(crate) fn get<'r, T>(row: &'r PgRow, column: &str) -> Result<T, RepositoryError>
where
    T: sqlx::Decode<'r, sqlx::Postgres> + sqlx::Type<sqlx::Postgres>,
{
    row.try_get::<T, _>(column)
        .map_err(|e| RepositoryError::corrupt(column, e))
}

/// A text column holding an id.
pub(crate) fn id<T: FromStr>(row: &PgRow, column: &str) -> Result<T, RepositoryError>
where
    T::Err: std::fmt::Display,
{
    let raw: String = get(row, column)?;
    raw.parse::<T>()
        .map_err(|e| RepositoryError::corrupt(column, e))
}

/// A PostgreSQL row, read by column name.
struct Pg<'a>(&'a PgRow);

impl StoredRow for Pg<'_> {
    fn opt_text(&self, column: &str) -> RepoResult<Option<String>> {
        get(self.0, column)
    }

    fn opt_int(&self, column: &str) -> RepoResult<Option<i64>> {
        get(self.0, column)
    }

    fn opt_time(&self, column: &str) -> RepoResult<Option<Timestamp>> {
        get(self.0, column)
    }

    fn flag(&self, column: &str) -> RepoResult<bool> {
        get(self.0, column)
    }
}

/// A row of `conversation_columns!`.
pub(crate) fn conversation(row: &PgRow) -> RepoResult<Conversation> {
    stored_row::conversation(&Pg(row))
}

/// A row of `grant_columns!`.
pub(crate) fn permission_grant(
    row: &PgRow,
) -> RepoResult<smallebot_core::entities::PermissionGrant> {
    stored_row::permission_grant(&Pg(row))
}

/// A row of `sub_agent_runs_select!`.
pub(crate) fn sub_agent_run(row: &PgRow) -> RepoResult<SubAgentRun> {
    stored_row::sub_agent_run(&Pg(row))
}

/// A row of `turn_columns!`.
pub(crate) fn turn(row: &PgRow) -> RepoResult<Turn> {
    stored_row::turn(&Pg(row))
}

/// A row of `message_columns!`, without its attachments.
pub(crate) fn message(row: &PgRow) -> RepoResult<Message> {
    stored_row::message(&Pg(row))
}

/// A row of `answer_versions`.
pub(crate) fn answer_version(row: &PgRow) -> RepoResult<AnswerVersion> {
    stored_row::answer_version(&Pg(row))
}

/// A row of `tool_call_columns!`.
pub(crate) fn tool_call(row: &PgRow) -> RepoResult<ToolCall> {
    stored_row::tool_call(&Pg(row))
}

/// A row of `attachment_columns!`.
pub(crate) fn attachment(row: &PgRow) -> RepoResult<Attachment> {
    stored_row::attachment(&Pg(row))
}

/// A row of `file_change_columns!`.
pub(crate) fn file_change(row: &PgRow) -> RepoResult<smallebot_core::entities::TurnFileChange> {
    stored_row::file_change(&Pg(row))
}

/// A row of `conversation_id, title, seq, kind, body, created_at`.
pub(crate) fn search_hit(row: &PgRow) -> RepoResult<SearchHit> {
    stored_row::search_hit(&Pg(row))
}

/// A row of `mcp_credential_columns!`.
pub(crate) fn mcp_credential(row: &PgRow) -> RepoResult<smallebot_core::entities::McpCredential> {
    stored_row::mcp_credential(&Pg(row))
}

/// A row of `hook_run_columns!`.
pub(crate) fn hook_run(row: &PgRow) -> RepoResult<smallebot_core::entities::HookRun> {
    stored_row::hook_run(&Pg(row))
}

/// A row of `usage_columns!`.
pub(crate) fn usage_record(row: &PgRow) -> RepoResult<smallebot_core::entities::UsageRecord> {
    stored_row::usage_record(&Pg(row))
}
