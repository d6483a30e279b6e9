//! The write of one model request's usage record.

use rusqlite::Connection;
use smallebot_core::entities::UsageRecord;
use smallebot_core::repository::RepoResult;
use smallebot_core::time::format_timestamp;

use crate::queries::execute;

/// A count as SQLite stores it (counts beyond `i64` do not happen; kept at the top).
fn int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// Inserts a queued `record` (nobody waits for its answer): a failure is said here.
pub(super) fn insert_queued(conn: &Connection, record: &UsageRecord) -> RepoResult<()> {
    insert(conn, record).inspect_err(|err| {
        tracing::warn!(%err, "a model request's usage record was not stored");
    })
}

/// Inserts `record` into `model_requests`.
pub(super) fn insert(conn: &Connection, record: &UsageRecord) -> RepoResult<()> {
    let a = &record.account;
    let t = record.tokens;
    execute(
        conn,
        "recording a model request",
        concat!(
            "INSERT INTO model_requests (",
            smallebot_core::usage_columns!(),
            ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
             ?17, ?18)"
        ),
        rusqlite::params![
            a.user_name,
            a.conversation_id.to_string(),
            a.turn_id.map(|id| id.to_string()),
            a.sub_conversation_id.map(|id| id.to_string()),
            a.step,
            record.purpose.as_str(),
            record.model,
            t.map(|t| int(t.prompt)),
            t.map(|t| int(t.cached_prompt)),
            t.map(|t| int(t.completion)),
            t.map(|t| int(t.reasoning)),
            record.cost,
            record.currency,
            record.first_token_ms.map(int),
            int(record.duration_ms),
            record.retries,
            record.outcome.as_str(),
            format_timestamp(&record.at),
        ],
    )?;
    Ok(())
}
