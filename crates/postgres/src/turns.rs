//! `TurnRepository` on PostgreSQL: turn lifecycle, leases, and the guarded primitives
//! edit, regenerate and undo are built on (`rewrite.rs`, `undo.rs`).
//!
//! Every write that adds rows to a conversation first takes the conversation's row lock
//! (`allocate_seqs`), so writers from any process queue there; the partial unique index
//! `turns_one_running` backs the one-running-turn rule should a writer skip the check.

use async_trait::async_trait;
use smallebot_core::entities::{
    FirstTurnTitle, LeaseOwner, Message, MessageReplacement, NewStep, RecordedStep, Turn,
    TurnContents, TurnRestart, TurnStatus, TurnUndo,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::repository::{RepoResult, TurnRepository};
use smallebot_core::time::Timestamp;
use sqlx::PgConnection;

mod guard;
mod rewrite;
mod start;
mod undo;

pub(crate) use start::{ensure_no_running_turn, insert_message, insert_turn};

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

/// Reads one message on `conn`.
pub(crate) async fn fetch_message(
    conn: &mut PgConnection,
    id: MessageId,
) -> RepoResult<Option<Message>> {
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

#[async_trait]
impl TurnRepository for PgStore {
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

    async fn turn_contents(&self, turn_id: TurnId) -> RepoResult<Option<TurnContents>> {
        let mut conn = self
            .pool()
            .acquire()
            .await
            .map_err(storage("reading a turn's rows"))?;
        rewrite::turn_contents(&mut conn, turn_id).await
    }

    async fn replace_user_message(
        &self,
        replacement: &MessageReplacement,
    ) -> RepoResult<(Turn, Message)> {
        rewrite::replace_user_message(self, replacement).await
    }

    async fn restart_turn(&self, restart: &TurnRestart) -> RepoResult<(Turn, Message)> {
        rewrite::restart(self, restart).await
    }

    async fn mark_turn_undone(&self, undo: &TurnUndo) -> RepoResult<Turn> {
        undo::mark_undone(self, undo).await
    }
}
