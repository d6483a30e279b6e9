//! `/undo`: the last turn in the context taken out of it, its rows kept and marked.

use smallebot_core::entities::Turn;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use super::{ensure_no_running_turn, ensure_turn_not_summarized, fetch_turn};
use crate::rows::{self, turn_columns};
use crate::store::PgStore;
use crate::tx::{now, storage};

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

/// See [`TurnRepository::undo_last_turn`](smallebot_core::repository::TurnRepository::undo_last_turn).
pub(super) async fn undo_last(
    store: &PgStore,
    conversation_id: ConversationId,
) -> RepoResult<Option<Turn>> {
    const ACTION: &str = "undoing a turn";
    let mut tx = store.pool().begin().await.map_err(storage(ACTION))?;
    let conversation = PgStore::lock_conversation(&mut tx, conversation_id).await?;
    ensure_no_running_turn(&mut tx, conversation_id).await?;
    let row = sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE conversation_id = $1 AND undone_at IS NULL ORDER BY seq DESC LIMIT 1"
    ))
    .bind(conversation_id.to_string())
    .fetch_optional(&mut *tx)
    .await
    .map_err(storage("finding the last turn"))?;
    let Some(turn) = row.as_ref().map(rows::turn).transpose()? else {
        return Ok(None);
    };
    ensure_turn_not_summarized(&mut tx, &conversation, &turn, "the last turn").await?;
    sqlx::query("UPDATE turns SET undone_at = $2 WHERE id = $1")
        .bind(turn.id.to_string())
        .bind(now())
        .execute(&mut *tx)
        .await
        .map_err(storage("marking a turn undone"))?;
    mark_rows(&mut tx, turn.id, true).await?;
    let undone = fetch_turn(&mut tx, turn.id).await?;
    tx.commit().await.map_err(storage(ACTION))?;
    Ok(undone)
}
