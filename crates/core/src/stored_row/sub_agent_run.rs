//! A row of [`sub_agent_runs_select!`](crate::sub_agent_runs_select): a sub-agent's
//! conversation and its latest turn's outcome.

use super::{StoredRow, conversation, u32_of};
use crate::RepositoryError;
use crate::entities::{SubAgentRun, TurnStatus};
use crate::repository::RepoResult;

/// A row of [`sub_agent_runs_select!`](crate::sub_agent_runs_select).
///
/// # Errors
/// [`RepositoryError::Corrupt`] naming the column that does not decode.
pub fn sub_agent_run(row: &impl StoredRow) -> RepoResult<SubAgentRun> {
    let latest_status = row
        .opt_text("latest_status")?
        .map(|raw| {
            TurnStatus::parse(&raw).map_err(|e| RepositoryError::corrupt("latest_status", e))
        })
        .transpose()?;
    let tool_calls = row.opt_int("latest_tool_calls")?.unwrap_or(0);
    Ok(SubAgentRun {
        conversation: conversation(row)?,
        latest_status,
        latest_error: row.opt_text("latest_error")?,
        tool_calls: u32_of("latest_tool_calls", tool_calls)?,
    })
}
