//! A row of [`hook_run_columns!`](crate::hook_run_columns).

use super::{StoredRow, count, id, int, opt_id, text, time};
use crate::RepositoryError;
use crate::entities::HookRun;
use crate::repository::RepoResult;

/// A row of [`hook_run_columns!`](crate::hook_run_columns).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn hook_run(row: &impl StoredRow) -> RepoResult<HookRun> {
    let exit_code = row
        .opt_int("exit_code")?
        .map(|code| i32::try_from(code).map_err(|e| RepositoryError::corrupt("exit_code", e)))
        .transpose()?;
    Ok(HookRun {
        conversation_id: id(row, "conversation_id")?,
        turn_id: opt_id(row, "turn_id")?,
        event: text(row, "event")?,
        tool_name: row.opt_text("tool_name")?,
        call_id: row.opt_text("call_id")?,
        command: text(row, "command")?,
        exit_code,
        duration_ms: count("duration_ms", int(row, "duration_ms")?)?,
        decision: text(row, "decision")?,
        at: time(row, "ended_at")?,
    })
}
