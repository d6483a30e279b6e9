//! The guarded rewrite primitives on the writer's connection: replace a user message,
//! restart a turn (each one transaction). They decide nothing; each checks, under the
//! conversation's row lock, that the state the caller decided on still holds. Also a
//! turn marked interrupted, and the test fixtures' rows.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{Message, MessageReplacement, Role, Turn, TurnRestart};
use smallebot_core::ids::{MessageId, TurnId};
use smallebot_core::refusals::Rewrite;
use smallebot_core::repository::RepoResult;
use smallebot_core::turn_columns;
use sqlx::{Connection as _, PgConnection};

use super::guard::{changed, check_guard};
use super::insert::{insert_message, insert_turn};
use super::undo;
use crate::fetch::{fetch_message, fetch_turn};
use crate::rows;
use crate::tx::{now, storage};

pub(super) const INTERRUPT: &str = "marking a turn interrupted";
#[cfg(any(test, feature = "test-support"))]
pub(super) const FIXTURE_TURN: &str = "starting a turn";
#[cfg(any(test, feature = "test-support"))]
pub(super) const FIXTURE_MESSAGE: &str = "appending a message";

/// Keeps `turn`'s answer so far (its assistant messages joined by a blank line) as a
/// version of `answered`, the user message it answered; nothing when it has none.
async fn keep_answer(conn: &mut PgConnection, turn: &Turn, answered: MessageId) -> RepoResult<()> {
    sqlx::query(
        "INSERT INTO answer_versions (conversation_id, turn_id, message_id, content, created_at) \
         SELECT $1, $2, $3, string_agg(content, E'\\n\\n' ORDER BY seq), $4 FROM messages \
         WHERE turn_id = $2 AND role = 'assistant' AND replaced_by IS NULL \
         HAVING count(*) > 0",
    )
    .bind(turn.conversation_id.to_string())
    .bind(turn.id.to_string())
    .bind(answered.to_string())
    .bind(now())
    .execute(&mut *conn)
    .await
    .map_err(storage("keeping a replaced answer"))?;
    Ok(())
}

/// Deletes every turn after `turn` (their rows cascade) and `turn`'s rows other than
/// `keep_message`, after keeping `turn`'s answer as a version of `keep_message`.
async fn discard_after(
    conn: &mut PgConnection,
    turn: &Turn,
    keep_message: MessageId,
) -> RepoResult<()> {
    keep_answer(conn, turn, keep_message).await?;
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
    conn: &mut PgConnection,
    replacement: &MessageReplacement,
) -> RepoResult<(Turn, Message)> {
    const ACTION: Rewrite = Rewrite::EditMessage;
    let message_id = replacement.message_id;
    let mut tx = conn.begin().await.map_err(storage(ACTION.doing()))?;
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
    let mut message = insert_message(
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
    message.attachments = super::attachments::move_to(&mut tx, old.id, message.id).await?;
    tx.commit().await.map_err(storage(ACTION.doing()))?;
    Ok((turn, message))
}

/// See `TurnRepository::restart_turn`.
pub(super) async fn restart(
    conn: &mut PgConnection,
    restart: &TurnRestart,
) -> RepoResult<(Turn, Message)> {
    const ACTION: Rewrite = Rewrite::Regenerate;
    let turn_id = restart.turn_id;
    let mut tx = conn.begin().await.map_err(storage(ACTION.doing()))?;
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
        "UPDATE turns SET status = 'running', error = NULL, cut = NULL, completed_at = NULL, \
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
    tx.commit().await.map_err(storage(ACTION.doing()))?;
    Ok((turn, user_message))
}

/// See `TurnRepository::interrupt_turn`.
pub(super) async fn interrupt(conn: &mut PgConnection, turn_id: TurnId) -> RepoResult<bool> {
    // The conversation's version moves (its calls still running end with the turn),
    // its row locked first as every writer locks it.
    let done = sqlx::query(
        "WITH moved AS (UPDATE conversations SET version = version + 1 \
           WHERE id = (SELECT conversation_id FROM turns WHERE id = $2 AND status = 'running') \
           RETURNING id) \
         UPDATE turns SET status = 'interrupted', completed_at = $1, \
         error = 'the process stopped while this turn was running', owner_pid = NULL, \
         owner_host = NULL, owner_started_at = NULL, heartbeat_at = NULL \
         WHERE id = $2 AND status = 'running' AND conversation_id IN (SELECT id FROM moved)",
    )
    .bind(now())
    .bind(turn_id.to_string())
    .execute(&mut *conn)
    .await
    .map_err(storage(INTERRUPT))?;
    Ok(done.rows_affected() == 1)
}

/// A running turn without an owner, in one transaction (a test fixture).
#[cfg(any(test, feature = "test-support"))]
pub(super) async fn fixture_turn(
    conn: &mut PgConnection,
    conversation_id: smallebot_core::ids::ConversationId,
    thinking_mode: bool,
) -> RepoResult<Turn> {
    let mut tx = conn.begin().await.map_err(storage(FIXTURE_TURN))?;
    let turn = insert_turn(&mut tx, conversation_id, thinking_mode, None).await?;
    tx.commit().await.map_err(storage(FIXTURE_TURN))?;
    Ok(turn)
}

/// A message appended to a turn, in one transaction (a test fixture).
#[cfg(any(test, feature = "test-support"))]
pub(super) async fn fixture_message(
    conn: &mut PgConnection,
    message: &smallebot_core::entities::NewMessage,
) -> RepoResult<Message> {
    let mut tx = conn.begin().await.map_err(storage(FIXTURE_MESSAGE))?;
    let stored = insert_message(
        &mut tx,
        message.conversation_id,
        message.turn_id,
        message.role,
        &message.content,
        message.token_count,
        false,
    )
    .await?;
    tx.commit().await.map_err(storage(FIXTURE_MESSAGE))?;
    Ok(stored)
}
