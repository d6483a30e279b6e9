//! The guarded rewrite primitives: replace a user message, restart a turn, and what
//! the rewrite rules read of a turn. They decide nothing; each checks, under the
//! conversation's row lock, that the state the caller decided on still holds.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    Message, MessageReplacement, Role, Turn, TurnContents, TurnRestart,
};
use smallebot_core::ids::{MessageId, TurnId};
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use super::guard::{changed, check_guard};
use super::{fetch_message, fetch_turn, insert_message, insert_turn, undo};
use crate::rows::{self, message_columns, turn_columns};
use crate::store::PgStore;
use crate::tx::{now, storage};

/// A turn with its messages and the `seq` of its last row.
pub(super) async fn turn_contents(
    conn: &mut PgConnection,
    turn_id: TurnId,
) -> RepoResult<Option<TurnContents>> {
    let Some(turn) = fetch_turn(conn, turn_id).await? else {
        return Ok(None);
    };
    let found = sqlx::query(concat!(
        "SELECT ",
        message_columns!(),
        " FROM messages WHERE turn_id = $1 ORDER BY seq"
    ))
    .bind(turn_id.to_string())
    .fetch_all(&mut *conn)
    .await
    .map_err(storage("reading a turn's messages"))?;
    let messages = found.iter().map(rows::message).collect::<RepoResult<_>>()?;
    let last_row_seq: Option<i64> = sqlx::query_scalar(
        "SELECT MAX(seq) FROM (SELECT seq FROM messages WHERE turn_id = $1 \
         UNION ALL SELECT seq FROM tool_calls WHERE turn_id = $1 \
         UNION ALL SELECT seq FROM think_blocks WHERE turn_id = $1) AS rows",
    )
    .bind(turn_id.to_string())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage("reading a turn's rows"))?;
    Ok(Some(TurnContents {
        turn,
        messages,
        last_row_seq,
    }))
}

/// Deletes every turn after `turn` (their rows cascade) and `turn`'s rows other than
/// `keep_message`.
async fn discard_after(
    conn: &mut PgConnection,
    turn: &Turn,
    keep_message: MessageId,
) -> RepoResult<()> {
    sqlx::query("DELETE FROM turns WHERE conversation_id = $1 AND seq > $2")
        .bind(turn.conversation_id.to_string())
        .bind(turn.seq)
        .execute(&mut *conn)
        .await
        .map_err(storage("discarding later turns"))?;
    let turn_id = turn.id.to_string();
    sqlx::query("DELETE FROM messages WHERE turn_id = $1 AND id <> $2")
        .bind(&turn_id)
        .bind(keep_message.to_string())
        .execute(&mut *conn)
        .await
        .map_err(storage("discarding a turn's messages"))?;
    sqlx::query("DELETE FROM tool_calls WHERE turn_id = $1")
        .bind(&turn_id)
        .execute(&mut *conn)
        .await
        .map_err(storage("discarding a turn's tool calls"))?;
    sqlx::query("DELETE FROM think_blocks WHERE turn_id = $1")
        .bind(&turn_id)
        .execute(&mut *conn)
        .await
        .map_err(storage("discarding a turn's reasoning"))?;
    Ok(())
}

/// See `TurnRepository::replace_user_message`.
pub(super) async fn replace_user_message(
    store: &PgStore,
    replacement: &MessageReplacement,
) -> RepoResult<(Turn, Message)> {
    const ACTION: &str = "editing a message";
    let message_id = replacement.message_id;
    let mut tx = store.pool().begin().await.map_err(storage(ACTION))?;
    check_guard(&mut tx, &replacement.guard, ACTION).await?;
    // Read under the lock: another process may have edited it meanwhile.
    let old = fetch_message(&mut tx, message_id)
        .await?
        .ok_or_else(|| RepositoryError::not_found("message", message_id))?;
    if old.conversation_id != replacement.guard.conversation_id || old.replaced_by.is_some() {
        return Err(changed(ACTION));
    }
    let old_turn = fetch_turn(&mut tx, old.turn_id)
        .await?
        .ok_or_else(|| RepositoryError::not_found("turn", old.turn_id))?;
    discard_after(&mut tx, &old_turn, old.id).await?;
    let turn = insert_turn(
        &mut tx,
        old.conversation_id,
        old_turn.thinking_mode,
        Some(&replacement.owner),
    )
    .await?;
    let message = insert_message(
        &mut tx,
        turn.conversation_id,
        turn.id,
        Role::User,
        &replacement.content,
        replacement.token_count,
        true,
    )
    .await?;
    sqlx::query("UPDATE messages SET replaced_by = $1 WHERE id = $2")
        .bind(message.id.to_string())
        .bind(old.id.to_string())
        .execute(&mut *tx)
        .await
        .map_err(storage("marking a message replaced"))?;
    tx.commit().await.map_err(storage(ACTION))?;
    Ok((turn, message))
}

/// See `TurnRepository::restart_turn`.
pub(super) async fn restart(store: &PgStore, restart: &TurnRestart) -> RepoResult<(Turn, Message)> {
    const ACTION: &str = "regenerating a turn";
    let turn_id = restart.turn_id;
    let mut tx = store.pool().begin().await.map_err(storage(ACTION))?;
    check_guard(&mut tx, &restart.guard, ACTION).await?;
    let turn = fetch_turn(&mut tx, turn_id)
        .await?
        .ok_or_else(|| RepositoryError::not_found("turn", turn_id))?;
    if turn.conversation_id != restart.guard.conversation_id {
        return Err(changed(ACTION));
    }
    let user_message = fetch_message(&mut tx, restart.keep_message)
        .await?
        .filter(|m| m.turn_id == turn_id && m.replaced_by.is_none())
        .ok_or_else(|| changed(ACTION))?;
    discard_after(&mut tx, &turn, user_message.id).await?;
    if turn.undone_at.is_some() {
        undo::restore(&mut tx, turn_id).await?;
    }
    let owner = &restart.owner;
    let row = sqlx::query(concat!(
        "UPDATE turns SET status = 'running', error = NULL, completed_at = NULL, \
         owner_pid = $2, owner_host = $3, owner_started_at = $4, heartbeat_at = $5 \
         WHERE id = $1 RETURNING ",
        turn_columns!()
    ))
    .bind(turn_id.to_string())
    .bind(i64::from(owner.pid))
    .bind(&owner.host)
    .bind(owner.started_at)
    .bind(now())
    .fetch_one(&mut *tx)
    .await
    .map_err(storage("restarting a turn"))?;
    let turn = rows::turn(&row)?;
    tx.commit().await.map_err(storage(ACTION))?;
    Ok((turn, user_message))
}
