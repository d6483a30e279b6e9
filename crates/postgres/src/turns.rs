//! `TurnRepository` on PostgreSQL: turn lifecycle, leases, edit, regenerate and undo.
//!
//! Every write that adds rows to a conversation first takes the conversation's row lock
//! (`allocate_seqs`), so writers from any process queue there; the partial unique index
//! `turns_one_running` backs the one-running-turn rule should a writer skip the check.

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    FirstTurnTitle, LeaseOwner, Message, NewStep, RecordedStep, Role, Turn, TurnStatus,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::{RepoResult, TurnRepository};
use smallebot_core::time::Timestamp;
use sqlx::PgConnection;

mod start;
mod undo;

pub(crate) use start::{ensure_no_running_turn, insert_turn};

use crate::history::insert_message;
use crate::rows::{self, message_columns, turn_columns};
use crate::store::PgStore;
use crate::tx::{now, pg_text, storage};
use crate::write::{Job, StartTurn};

/// Reads one turn on `conn`.
pub(crate) async fn fetch_turn(conn: &mut PgConnection, id: TurnId) -> RepoResult<Option<Turn>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE id = $1"
    ))
    .bind(id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("reading a turn"))?;
    row.as_ref().map(rows::turn).transpose()
}

async fn fetch_message(conn: &mut PgConnection, id: MessageId) -> RepoResult<Option<Message>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        message_columns!(),
        " FROM messages WHERE id = $1"
    ))
    .bind(id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("reading a message"))?;
    row.as_ref().map(rows::message).transpose()
}

/// Refuses to change rows that compression already summarized (`conversation` is the
/// locked row).
fn ensure_not_summarized(
    conversation: &smallebot_core::entities::Conversation,
    seq: i64,
    what: &str,
) -> RepoResult<()> {
    if seq <= conversation.history_boundary() {
        return Err(RepositoryError::Conflict(format!(
            "{what} is already summarized by context compression and can no longer be changed"
        )));
    }
    Ok(())
}

/// Refuses to change a turn whose last row compression already summarized.
async fn ensure_turn_not_summarized(
    conn: &mut PgConnection,
    conversation: &smallebot_core::entities::Conversation,
    turn: &Turn,
    what: &str,
) -> RepoResult<()> {
    let last_seq: Option<i64> = sqlx::query_scalar(
        "SELECT MAX(seq) FROM (SELECT seq FROM messages WHERE turn_id = $1 \
         UNION ALL SELECT seq FROM tool_calls WHERE turn_id = $1 \
         UNION ALL SELECT seq FROM think_blocks WHERE turn_id = $1) AS rows",
    )
    .bind(turn.id.to_string())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage("reading a turn's rows"))?;
    ensure_not_summarized(conversation, last_seq.unwrap_or(turn.seq), what)
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

#[async_trait]
impl TurnRepository for PgStore {
    async fn start_turn(
        &self,
        conversation_id: ConversationId,
        thinking_mode: bool,
    ) -> RepoResult<Turn> {
        const ACTION: &str = "starting a turn";
        let mut tx = self.pool().begin().await.map_err(storage(ACTION))?;
        let turn = insert_turn(&mut tx, conversation_id, thinking_mode, None).await?;
        tx.commit().await.map_err(storage(ACTION))?;
        Ok(turn)
    }

    async fn start_turn_with_message(
        &self,
        conversation_id: ConversationId,
        thinking_mode: bool,
        content: &str,
        token_count: i64,
        owner: &LeaseOwner,
    ) -> RepoResult<(Turn, Message)> {
        let start = StartTurn {
            conversation_id,
            thinking_mode,
            content: content.to_owned(),
            token_count,
            owner: owner.clone(),
        };
        self.writer()
            .submit("starting a turn", |reply| Job::StartTurn(start, reply))
            .await
    }

    async fn start_turn_with_title(
        &self,
        conversation_id: ConversationId,
        thinking_mode: bool,
        content: &str,
        token_count: i64,
        owner: &LeaseOwner,
        title: FirstTurnTitle<'_>,
    ) -> RepoResult<(Turn, Message, bool)> {
        let (turn, message) = self
            .start_turn_with_message(conversation_id, thinking_mode, content, token_count, owner)
            .await?;
        // A conversation's sequence starts at 1: its first turn has seq 1.
        if turn.seq != 1 {
            return Ok((turn, message, false));
        }
        let titled = sqlx::query(
            "UPDATE conversations SET title = $1, updated_at = $2 WHERE id = $3 AND title = $4",
        )
        .bind(pg_text(title.title).as_ref())
        .bind(now())
        .bind(conversation_id.to_string())
        .bind(title.untitled)
        .execute(self.pool())
        .await
        .map_err(storage("giving a new conversation its title"))?;
        Ok((turn, message, titled.rows_affected() > 0))
    }

    async fn heartbeat(&self, turn_id: TurnId, at: Timestamp) -> RepoResult<bool> {
        self.writer()
            .submit("renewing a turn's lease", |reply| Job::Heartbeat {
                turn_id,
                at,
                reply,
            })
            .await
    }

    async fn running_turns(&self) -> RepoResult<Vec<Turn>> {
        let found = sqlx::query(concat!(
            "SELECT ",
            turn_columns!(),
            " FROM turns WHERE status = 'running' ORDER BY created_at, id"
        ))
        .fetch_all(self.pool())
        .await
        .map_err(storage("listing running turns"))?;
        found.iter().map(rows::turn).collect()
    }

    async fn running_turn(&self, conversation_id: ConversationId) -> RepoResult<Option<Turn>> {
        let mut conn = self
            .pool()
            .acquire()
            .await
            .map_err(storage("reading the running turn"))?;
        start::running_turn_on(&mut conn, conversation_id).await
    }

    async fn interrupt_turn(&self, turn_id: TurnId) -> RepoResult<bool> {
        let done = sqlx::query(
            "UPDATE turns SET status = 'interrupted', completed_at = $1, \
             error = 'the process stopped while this turn was running', owner_pid = NULL, \
             owner_host = NULL, owner_started_at = NULL, heartbeat_at = NULL \
             WHERE id = $2 AND status = 'running'",
        )
        .bind(now())
        .bind(turn_id.to_string())
        .execute(self.pool())
        .await
        .map_err(storage("marking a turn interrupted"))?;
        Ok(done.rows_affected() == 1)
    }

    async fn finish_turn(
        &self,
        turn_id: TurnId,
        status: TurnStatus,
        error: Option<&str>,
    ) -> RepoResult<Turn> {
        let error = error.map(|e| crate::tx::pg_text(e).into_owned());
        self.writer()
            .submit("finishing a turn", |reply| Job::FinishTurn {
                turn_id,
                status,
                error,
                reply,
            })
            .await
    }

    async fn record_step(&self, step: &NewStep) -> RepoResult<RecordedStep> {
        crate::steps::record_step(self, step).await
    }

    async fn get_turn(&self, turn_id: TurnId) -> RepoResult<Option<Turn>> {
        let mut conn = self
            .pool()
            .acquire()
            .await
            .map_err(storage("reading a turn"))?;
        fetch_turn(&mut conn, turn_id).await
    }

    async fn list_turns(&self, conversation_id: ConversationId) -> RepoResult<Vec<Turn>> {
        let found = sqlx::query(concat!(
            "SELECT ",
            turn_columns!(),
            " FROM turns WHERE conversation_id = $1 ORDER BY seq"
        ))
        .bind(conversation_id.to_string())
        .fetch_all(self.pool())
        .await
        .map_err(storage("listing turns"))?;
        found.iter().map(rows::turn).collect()
    }

    async fn edit_user_message(
        &self,
        message_id: MessageId,
        new_content: &str,
        token_count: i64,
        owner: &LeaseOwner,
    ) -> RepoResult<(Turn, Message)> {
        const ACTION: &str = "editing a message";
        let mut tx = self.pool().begin().await.map_err(storage(ACTION))?;
        let old = fetch_message(&mut tx, message_id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("message", message_id))?;
        let conversation = PgStore::lock_conversation(&mut tx, old.conversation_id).await?;
        // Read again under the lock: another process may have edited it meanwhile.
        let old = fetch_message(&mut tx, message_id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("message", message_id))?;
        if old.role != Role::User || old.replaced_by.is_some() {
            return Err(RepositoryError::Conflict(format!(
                "message {message_id} is not a current user message; only the person's latest \
                 version of a message can be edited"
            )));
        }
        ensure_not_summarized(&conversation, old.seq, "this message")?;
        ensure_no_running_turn(&mut tx, old.conversation_id).await?;
        let old_turn = fetch_turn(&mut tx, old.turn_id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("turn", old.turn_id))?;
        discard_after(&mut tx, &old_turn, old.id).await?;
        let turn = insert_turn(
            &mut tx,
            old.conversation_id,
            old_turn.thinking_mode,
            Some(owner),
        )
        .await?;
        let message = insert_message(
            &mut tx,
            turn.conversation_id,
            turn.id,
            Role::User,
            new_content,
            token_count,
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

    async fn reset_turn_for_regeneration(
        &self,
        turn_id: TurnId,
        owner: &LeaseOwner,
    ) -> RepoResult<(Turn, Message)> {
        const ACTION: &str = "regenerating a turn";
        let mut tx = self.pool().begin().await.map_err(storage(ACTION))?;
        let turn = fetch_turn(&mut tx, turn_id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("turn", turn_id))?;
        let conversation = PgStore::lock_conversation(&mut tx, turn.conversation_id).await?;
        ensure_no_running_turn(&mut tx, turn.conversation_id).await?;
        let turn = fetch_turn(&mut tx, turn_id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("turn", turn_id))?;
        let row = sqlx::query(concat!(
            "SELECT ",
            message_columns!(),
            " FROM messages WHERE turn_id = $1 AND role = 'user' AND replaced_by IS NULL \
             ORDER BY seq LIMIT 1"
        ))
        .bind(turn_id.to_string())
        .fetch_optional(&mut *tx)
        .await
        .map_err(storage("reading a turn's user message"))?;
        let user_message = row
            .as_ref()
            .map(rows::message)
            .transpose()?
            .ok_or_else(|| {
                RepositoryError::Conflict(format!("turn {turn_id} has no current user message"))
            })?;
        ensure_turn_not_summarized(&mut tx, &conversation, &turn, "this turn").await?;
        discard_after(&mut tx, &turn, user_message.id).await?;
        if turn.undone_at.is_some() {
            undo::restore(&mut tx, turn_id).await?;
        }
        let at = now();
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
        .bind(at)
        .fetch_one(&mut *tx)
        .await
        .map_err(storage("restarting a turn"))?;
        let turn = rows::turn(&row)?;
        tx.commit().await.map_err(storage(ACTION))?;
        Ok((turn, user_message))
    }

    async fn undo_last_turn(&self, conversation_id: ConversationId) -> RepoResult<Option<Turn>> {
        undo::undo_last(self, conversation_id).await
    }
}
