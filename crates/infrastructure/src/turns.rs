//! `TurnRepository` on SQLite: turn lifecycle, edit, regenerate and undo.

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    FirstTurnTitle, LeaseOwner, Message, NewMessage, NewStep, RecordedStep, Role, Turn, TurnStatus,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::{RepoResult, TurnRepository};
use smallebot_core::time::{Timestamp, format_timestamp};
use sqlx::SqliteConnection;

mod start;
mod undo;

use crate::database::SqliteStore;
use crate::history;
use crate::leases::{self, ensure_no_running_turn, insert_turn};
use crate::rows;
use crate::search_index::{batch_full_sql, index_pending_sql};
use crate::tx::{now, storage};

pub(crate) async fn fetch_turn(
    conn: &mut SqliteConnection,
    id: TurnId,
) -> RepoResult<Option<Turn>> {
    let row = sqlx::query(
        "SELECT id, conversation_id, seq, thinking_mode, status, error, created_at, completed_at, \
         owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at FROM turns WHERE id = ?1",
    )
    .bind(id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("reading a turn"))?;
    row.as_ref().map(rows::turn).transpose()
}

async fn fetch_message(conn: &mut SqliteConnection, id: MessageId) -> RepoResult<Option<Message>> {
    let row = sqlx::query(
        "SELECT id, conversation_id, turn_id, seq, role, content, token_count, created_at, \
         replaced_by, is_edited FROM messages WHERE id = ?1",
    )
    .bind(id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("reading a message"))?;
    row.as_ref().map(rows::message).transpose()
}

/// Refuses to change rows that compression already summarized.
async fn ensure_not_summarized(
    conn: &mut SqliteConnection,
    conversation_id: ConversationId,
    seq: i64,
    what: &str,
) -> RepoResult<()> {
    let conversation = SqliteStore::fetch_conversation(conn, conversation_id)
        .await?
        .ok_or_else(|| RepositoryError::not_found("conversation", conversation_id))?;
    if seq <= conversation.history_boundary() {
        return Err(RepositoryError::Conflict(format!(
            "{what} is already summarized by context compression and can no longer be changed"
        )));
    }
    Ok(())
}

/// Refuses to change a turn whose last row compression already summarized.
async fn ensure_turn_not_summarized(
    conn: &mut SqliteConnection,
    turn: &Turn,
    what: &str,
) -> RepoResult<()> {
    let last_seq: Option<i64> = sqlx::query_scalar(
        "SELECT MAX(seq) FROM (SELECT seq FROM messages WHERE turn_id = ?1 \
         UNION ALL SELECT seq FROM tool_calls WHERE turn_id = ?1 \
         UNION ALL SELECT seq FROM think_blocks WHERE turn_id = ?1)",
    )
    .bind(turn.id.to_string())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage("reading a turn's rows"))?;
    let last = last_seq.unwrap_or(turn.seq);
    ensure_not_summarized(conn, turn.conversation_id, last, what).await
}

/// Deletes every turn after `turn` (their rows cascade) and `turn`'s rows other than
/// `keep_message`.
async fn discard_after(
    conn: &mut SqliteConnection,
    turn: &Turn,
    keep_message: MessageId,
) -> RepoResult<()> {
    let conversation = turn.conversation_id.to_string();
    sqlx::query("DELETE FROM turns WHERE conversation_id = ?1 AND seq > ?2")
        .bind(&conversation)
        .bind(turn.seq)
        .execute(&mut *conn)
        .await
        .map_err(storage("discarding later turns"))?;
    let turn_id = turn.id.to_string();
    sqlx::query("DELETE FROM messages WHERE turn_id = ?1 AND id <> ?2")
        .bind(&turn_id)
        .bind(keep_message.to_string())
        .execute(&mut *conn)
        .await
        .map_err(storage("discarding a turn's messages"))?;
    sqlx::query("DELETE FROM tool_calls WHERE turn_id = ?1")
        .bind(&turn_id)
        .execute(&mut *conn)
        .await
        .map_err(storage("discarding a turn's tool calls"))?;
    sqlx::query("DELETE FROM think_blocks WHERE turn_id = ?1")
        .bind(&turn_id)
        .execute(&mut *conn)
        .await
        .map_err(storage("discarding a turn's reasoning"))?;
    Ok(())
}

/// Ends a turn (?1 status, ?2 error, ?3 now, ?4 turn) and, when they are a full batch,
/// indexes the pending search rows, in one transaction, in one round trip.
const FINISH_TURN: &str = concat!(
    "BEGIN IMMEDIATE; \
     UPDATE turns SET status = ?1, error = ?2, completed_at = ?3, owner_pid = NULL, \
       owner_host = NULL, owner_started_at = NULL, heartbeat_at = NULL WHERE id = ?4 \
       RETURNING id, conversation_id, seq, thinking_mode, status, error, created_at, \
       completed_at, owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at; ",
    index_pending_sql!(batch_full_sql!()),
    "COMMIT"
);

#[async_trait]
impl TurnRepository for SqliteStore {
    async fn start_turn(
        &self,
        conversation_id: ConversationId,
        thinking_mode: bool,
    ) -> RepoResult<Turn> {
        let mut tx = self.write_tx("starting a turn").await?;
        let turn = insert_turn(&mut tx, conversation_id, thinking_mode, None).await?;
        tx.commit().await.map_err(storage("starting a turn"))?;
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
        let (turn, message, _) = start::start_turn_with_message(
            self,
            conversation_id,
            thinking_mode,
            content,
            token_count,
            owner,
            None,
        )
        .await?;
        Ok((turn, message))
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
        start::start_turn_with_message(
            self,
            conversation_id,
            thinking_mode,
            content,
            token_count,
            owner,
            Some(title),
        )
        .await
    }

    async fn finish_turn(
        &self,
        turn_id: TurnId,
        status: TurnStatus,
        error: Option<&str>,
    ) -> RepoResult<Turn> {
        const ACTION: &str = "finishing a turn";
        let (_, at_text) = now();
        let mut writer = self.writer().lock().await.map_err(storage(ACTION))?;
        let query = sqlx::query(FINISH_TURN)
            .bind(status.as_str())
            .bind(error)
            .bind(at_text)
            .bind(turn_id.to_string());
        let returned = writer
            .transaction_in_one_trip(query)
            .await
            .map_err(storage(ACTION))?;
        match returned.first() {
            Some(row) => rows::turn(row),
            None => Err(RepositoryError::not_found("turn", turn_id)),
        }
    }

    async fn record_step(&self, step: &NewStep) -> RepoResult<RecordedStep> {
        crate::steps::record_step(self, step).await
    }

    async fn get_turn(&self, turn_id: TurnId) -> RepoResult<Option<Turn>> {
        let mut conn = self.reader("reading a turn").await?;
        fetch_turn(&mut conn, turn_id).await
    }

    async fn list_turns(&self, conversation_id: ConversationId) -> RepoResult<Vec<Turn>> {
        let found = sqlx::query(
            "SELECT id, conversation_id, seq, thinking_mode, status, error, created_at, \
             completed_at, owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at \
             FROM turns WHERE conversation_id = ?1 ORDER BY seq",
        )
        .bind(conversation_id.to_string())
        .fetch_all(self.pool())
        .await
        .map_err(storage("listing turns"))?;
        found.iter().map(rows::turn).collect()
    }

    async fn heartbeat(&self, turn_id: TurnId, at: Timestamp) -> RepoResult<bool> {
        leases::heartbeat(self, turn_id, at).await
    }

    async fn running_turns(&self) -> RepoResult<Vec<Turn>> {
        leases::running_turns(self, None).await
    }

    async fn running_turn(&self, conversation_id: ConversationId) -> RepoResult<Option<Turn>> {
        Ok(leases::running_turns(self, Some(conversation_id))
            .await?
            .into_iter()
            .next())
    }

    async fn interrupt_turn(&self, turn_id: TurnId) -> RepoResult<bool> {
        leases::interrupt_turn(self, turn_id).await
    }

    async fn edit_user_message(
        &self,
        message_id: MessageId,
        new_content: &str,
        token_count: i64,
        owner: &LeaseOwner,
    ) -> RepoResult<(Turn, Message)> {
        let mut tx = self.write_tx("editing a message").await?;
        let old = fetch_message(&mut tx, message_id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("message", message_id))?;
        if old.role != Role::User || old.replaced_by.is_some() {
            return Err(RepositoryError::Conflict(format!(
                "message {message_id} is not a current user message; only the person's latest \
                 version of a message can be edited"
            )));
        }
        ensure_not_summarized(&mut tx, old.conversation_id, old.seq, "this message").await?;
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
        sqlx::query("UPDATE messages SET replaced_by = ?1 WHERE id = ?2")
            .bind(message.id.to_string())
            .bind(old.id.to_string())
            .execute(&mut *tx)
            .await
            .map_err(storage("marking a message replaced"))?;
        tx.commit().await.map_err(storage("editing a message"))?;
        Ok((turn, message))
    }

    async fn reset_turn_for_regeneration(
        &self,
        turn_id: TurnId,
        owner: &LeaseOwner,
    ) -> RepoResult<(Turn, Message)> {
        let mut tx = self.write_tx("regenerating a turn").await?;
        let turn = fetch_turn(&mut tx, turn_id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("turn", turn_id))?;
        ensure_no_running_turn(&mut tx, turn.conversation_id).await?;
        let row = sqlx::query(
            "SELECT id, conversation_id, turn_id, seq, role, content, token_count, created_at, \
             replaced_by, is_edited FROM messages \
             WHERE turn_id = ?1 AND role = 'user' AND replaced_by IS NULL ORDER BY seq LIMIT 1",
        )
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
        ensure_turn_not_summarized(&mut tx, &turn, "this turn").await?;
        discard_after(&mut tx, &turn, user_message.id).await?;
        if turn.undone_at.is_some() {
            sqlx::query(undo::RESTORE)
                .bind(turn_id.to_string())
                .execute(&mut *tx)
                .await
                .map_err(storage("bringing an undone turn back"))?;
        }
        let (_, at_text) = now();
        sqlx::query(
            "UPDATE turns SET status = 'running', error = NULL, completed_at = NULL, \
             owner_pid = ?2, owner_host = ?3, owner_started_at = ?4, heartbeat_at = ?5 \
             WHERE id = ?1",
        )
        .bind(turn_id.to_string())
        .bind(i64::from(owner.pid))
        .bind(&owner.host)
        .bind(format_timestamp(&owner.started_at))
        .bind(at_text)
        .execute(&mut *tx)
        .await
        .map_err(storage("restarting a turn"))?;
        let turn = fetch_turn(&mut tx, turn_id)
            .await?
            .ok_or_else(|| RepositoryError::not_found("turn", turn_id))?;
        tx.commit().await.map_err(storage("regenerating a turn"))?;
        Ok((turn, user_message))
    }

    async fn undo_last_turn(&self, conversation_id: ConversationId) -> RepoResult<Option<Turn>> {
        self.undo_last(conversation_id).await
    }
}

/// Inserts a message with the next `seq` (inside a write transaction).
pub(crate) async fn insert_message(
    conn: &mut SqliteConnection,
    conversation_id: ConversationId,
    turn_id: TurnId,
    role: Role,
    content: &str,
    token_count: i64,
    is_edited: bool,
) -> RepoResult<Message> {
    let (at, at_text) = now();
    let new = NewMessage {
        conversation_id,
        turn_id,
        role,
        content: content.to_owned(),
        token_count,
    };
    let id = MessageId::new();
    let rows = history::message_insert(history::INSERT_MESSAGE, at_text, id, &new, is_edited)
        .fetch_all(&mut *conn)
        .await
        .map_err(storage("appending a message"))?;
    Ok(Message {
        id,
        conversation_id,
        turn_id,
        seq: history::allocated_seq(&rows, conversation_id)?,
        role,
        content: new.content,
        token_count,
        created_at: at,
        replaced_by: None,
        is_edited,
    })
}
