//! Undo's primitive on the writer's connection: a turn and its rows marked undone (kept, out of the context), and
//! brought back when the turn is regenerated.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{Turn, TurnUndo};
use smallebot_core::ids::TurnId;
use smallebot_core::refusals::Rewrite;
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use sqlx::Connection as _;

use super::guard::{changed, check_guard};
use crate::fetch::fetch_turn;
use crate::tx::{now, storage};

const ACTION: Rewrite = Rewrite::Undo;

/// Sets the `undone` mark of a turn's rows ($1 turn, $2 the mark); the triggers move
/// their tokens out of (or back into) `context_tokens`.
const MARK_ROWS: [&str; 3] = [
    "UPDATE messages SET undone = $2 WHERE turn_id = $1",
    "UPDATE tool_calls SET undone = $2 WHERE turn_id = $1",
    "UPDATE think_blocks SET undone = $2 WHERE turn_id = $1",
];

async fn mark_rows(conn: &mut PgConnection, turn_id: TurnId, undone: bool) -> RepoResult<()> {
    for sql in MARK_ROWS {
        sqlx::query(sql)
            .bind(turn_id.to_string())
            .bind(undone)
            .execute(&mut *conn)
            .await
            .map_err(storage("marking a turn's rows"))?;
    }
    Ok(())
}

/// Brings an undone turn back into the context: what regenerating it keeps.
pub(super) async fn restore(conn: &mut PgConnection, turn_id: TurnId) -> RepoResult<()> {
    sqlx::query("UPDATE turns SET undone_at = NULL WHERE id = $1")
        .bind(turn_id.to_string())
        .execute(&mut *conn)
        .await
        .map_err(storage("bringing an undone turn back"))?;
    mark_rows(conn, turn_id, false).await
}

/// See [`TurnRepository::mark_turn_undone`](smallebot_core::repository::TurnRepository::mark_turn_undone).
pub(super) async fn mark_undone(conn: &mut PgConnection, undo: &TurnUndo) -> RepoResult<Turn> {
    let mut tx = conn.begin().await.map_err(storage(ACTION.doing()))?;
    check_guard(&mut tx, &undo.guard, ACTION).await?;
    let turn = fetch_turn(&mut tx, undo.turn_id)
        .await?
        .ok_or_else(|| RepositoryError::not_found("turn", undo.turn_id))?;
    let later: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM turns WHERE conversation_id = $1 AND seq > $2 \
         AND undone_at IS NULL",
    )
    .bind(turn.conversation_id.to_string())
    .bind(turn.seq)
    .fetch_one(&mut *tx)
    .await
    .map_err(storage("finding the last turn"))?;
    if turn.conversation_id != undo.guard.conversation_id || turn.undone_at.is_some() || later > 0 {
        return Err(changed(ACTION));
    }
    sqlx::query("UPDATE turns SET undone_at = $2 WHERE id = $1")
        .bind(turn.id.to_string())
        .bind(now())
        .execute(&mut *tx)
        .await
        .map_err(storage("marking a turn undone"))?;
    mark_rows(&mut tx, turn.id, true).await?;
    let undone = fetch_turn(&mut tx, turn.id)
        .await?
        .ok_or_else(|| RepositoryError::not_found("turn", turn.id))?;
    tx.commit().await.map_err(storage(ACTION.doing()))?;
    Ok(undone)
}
