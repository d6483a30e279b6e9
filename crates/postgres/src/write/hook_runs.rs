//! The write of one hook run's record, on the writer's connection.

use smallebot_core::entities::HookRun;
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use crate::tx::storage;

use super::link::{Link, Reply, lost};

const RECORD: &str = "recording a hook run";

/// Writes a queued `run` and answers `reply` (nobody waits: a failure is said here).
pub(super) async fn record(link: &mut Link, run: &HookRun, reply: Reply<()>) {
    answer_on_link!(link, reply, RECORD, |conn| async move {
        insert(conn, run).await.inspect_err(|err| {
            tracing::warn!(%err, "a hook run's record was not stored");
        })
    })
}

/// Inserts `run` into `hook_runs` (nothing when its conversation or turn is gone).
async fn insert(conn: &mut PgConnection, run: &HookRun) -> RepoResult<()> {
    sqlx::query(concat!(
        "INSERT INTO hook_runs (",
        smallebot_core::hook_run_columns!(),
        ") SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 \
         WHERE EXISTS (SELECT 1 FROM conversations WHERE id = $1) \
         AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM turns WHERE id = $2))"
    ))
    .bind(run.conversation_id.to_string())
    .bind(run.turn_id.map(|id| id.to_string()))
    .bind(&run.event)
    .bind(run.tool_name.as_deref())
    .bind(run.call_id.as_deref())
    .bind(&run.command)
    .bind(run.exit_code.map(i64::from))
    .bind(i64::try_from(run.duration_ms).unwrap_or(i64::MAX))
    .bind(&run.decision)
    .bind(run.at)
    .execute(&mut *conn)
    .await
    .map_err(storage(RECORD))?;
    Ok(())
}
