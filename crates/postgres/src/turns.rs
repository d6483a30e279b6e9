//! `TurnRepository` on PostgreSQL: turn lifecycle, leases, and the guarded primitives
//! edit, regenerate and undo are built on. Every write is a job of the writer
//! (`write.rs`; the rewrites in `write/rewrite.rs`, `write/undo.rs`); reads are here.
//!
//! Every write that adds rows to a conversation first takes the conversation's row lock
//! (its `last_seq`), so writers from any process queue there; the partial unique index
//! `turns_one_running` backs the one-running-turn rule should a writer skip the check.

use async_trait::async_trait;
use smallebot_core::entities::{
    FirstTurnTitle, Message, MessageReplacement, NewStep, NewTurn, RecordedStep, StartedTurn, Turn,
    TurnContents, TurnRestart, TurnStatus, TurnUndo,
};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::{RepoResult, TurnRepository};
use smallebot_core::time::Timestamp;
use smallebot_core::turn_columns;

mod contents;

use crate::fetch::{fetch_turn, running_turn_on};
use crate::rows;
use crate::store::PgStore;
use crate::tx::{pg_text, storage};
use crate::write::{ConversationEdit, Edit, Job, StartTurn};

impl PgStore {
    /// Starts a turn through the writer; also answers the conversation's version after
    /// the start.
    async fn start(&self, start: StartTurn) -> RepoResult<(Turn, Message, i64)> {
        self.writer()
            .submit("starting a turn", |reply| Job::StartTurn(start, reply))
            .await
    }

    /// Gives a conversation whose first turn `turn` is the title `title.title` while it
    /// still has `title.untitled`; whether it did.
    async fn first_title(&self, turn: &Turn, title: FirstTurnTitle<'_>) -> RepoResult<bool> {
        if !turn.is_first() {
            return Ok(false);
        }
        let conversation_id = turn.conversation_id;
        let untitled = title.untitled.to_owned();
        let title = pg_text(title.title).into_owned();
        self.edit("giving a new conversation its title", |reply| {
            Edit::Conversation(ConversationEdit::FirstTitle {
                conversation_id,
                title,
                untitled,
                reply,
            })
        })
        .await
    }
}

#[async_trait]
impl TurnRepository for PgStore {
    /// The start's own write brings the kept rows of the conversation along when they
    /// were current just before it (see `history/cache.rs`): then they are the rows as
    /// the start left them, answered without a read.
    async fn start_turn_in_context(&self, new: &NewTurn<'_>) -> RepoResult<StartedTurn> {
        let start = StartTurn {
            conversation_id: new.conversation_id,
            thinking_mode: new.thinking_mode,
            content: new.content.to_owned(),
            attachments: new.attachments.to_vec(),
            token_count: new.token_count,
            owner: new.owner.clone(),
        };
        let (turn, message, version) = self.start(start).await?;
        let rows = self
            .rows_cache()
            .rows(new.conversation_id, new.boundary, version);
        let titled = match new.title {
            Some(title) => self.first_title(&turn, title).await?,
            None => false,
        };
        Ok(StartedTurn {
            turn,
            message,
            titled,
            rows,
        })
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
        running_turn_on(&mut conn, conversation_id).await
    }

    async fn interrupt_turn(&self, turn_id: TurnId) -> RepoResult<bool> {
        self.edit("marking a turn interrupted", |reply| {
            Edit::InterruptTurn(turn_id, reply)
        })
        .await
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
        contents::turn_contents(&mut conn, turn_id).await
    }

    async fn replace_user_message(
        &self,
        replacement: &MessageReplacement,
    ) -> RepoResult<(Turn, Message)> {
        let replacement = replacement.clone();
        self.edit("editing a message", |reply| {
            Edit::ReplaceUserMessage(replacement, reply)
        })
        .await
    }

    async fn restart_turn(&self, restart: &TurnRestart) -> RepoResult<(Turn, Message)> {
        let restart = restart.clone();
        self.edit("regenerating a turn", |reply| {
            Edit::RestartTurn(restart, reply)
        })
        .await
    }

    async fn mark_turn_undone(&self, undo: &TurnUndo) -> RepoResult<Turn> {
        let undo = *undo;
        self.edit("undoing a turn", |reply| Edit::MarkTurnUndone(undo, reply))
            .await
    }
}
