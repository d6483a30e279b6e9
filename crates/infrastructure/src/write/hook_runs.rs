//! The write of one hook run's record.

use rusqlite::Connection;
use smallebot_core::entities::HookRun;
use smallebot_core::repository::RepoResult;
use smallebot_core::time::format_timestamp;

use crate::queries::execute;

/// Inserts a queued `run` (nobody waits for its answer): a failure is said here. A
/// run whose conversation is gone meanwhile is not stored.
pub(super) fn insert(conn: &Connection, run: &HookRun) -> RepoResult<()> {
    insert_row(conn, run).inspect_err(|err| {
        tracing::warn!(%err, "a hook run's record was not stored");
    })
}

/// Inserts `run` into `hook_runs` (nothing when its conversation or turn is gone).
fn insert_row(conn: &Connection, run: &HookRun) -> RepoResult<()> {
    execute(
        conn,
        "recording a hook run",
        concat!(
            "INSERT INTO hook_runs (",
            smallebot_core::hook_run_columns!(),
            ") SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10 \
             WHERE EXISTS (SELECT 1 FROM conversations WHERE id = ?1) \
             AND (?2 IS NULL OR EXISTS (SELECT 1 FROM turns WHERE id = ?2))"
        ),
        rusqlite::params![
            run.conversation_id.to_string(),
            run.turn_id.map(|id| id.to_string()),
            run.event,
            run.tool_name,
            run.call_id,
            run.command,
            run.exit_code,
            i64::try_from(run.duration_ms).unwrap_or(i64::MAX),
            run.decision,
            format_timestamp(&run.at),
        ],
    )?;
    Ok(())
}
