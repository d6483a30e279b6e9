//! `TurnRepository` on SQLite: every change is a job of the writer (`write/turns.rs`
//! holds the statements); reads come from the read pool.

use async_trait::async_trait;
use smallebot_core::entities::{
    Message, MessageReplacement, NewStep, NewTurn, RecordedStep, StartedTurn, Turn, TurnContents,
    TurnRestart, TurnStatus, TurnUndo,
};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::{RepoResult, TurnRepository};
use smallebot_core::time::Timestamp;
use smallebot_core::turn_columns;

use crate::database::SqliteStore;
use crate::queries;
use crate::rows;
use crate::write::{TurnStart, Write};

#[async_trait]
impl TurnRepository for SqliteStore {
    /// The rows are never at hand here: the caller reads them.
    async fn start_turn_in_context(&self, new: &NewTurn<'_>) -> RepoResult<StartedTurn> {
        let start = TurnStart {
            conversation_id: new.conversation_id,
            thinking_mode: new.thinking_mode,
            content: new.content.to_owned(),
            attachments: new.attachments.to_vec(),
            token_count: new.token_count,
            owner: new.owner.clone(),
            title: new
                .title
                .map(|title| (title.title.to_owned(), title.untitled.to_owned())),
        };
        let (turn, message, titled) = self
            .writer()
            .run(|reply| Write::StartTurnWithMessage { start, reply })
            .await?;
        Ok(StartedTurn {
            turn,
            message,
            titled,
            rows: None,
        })
    }

    async fn finish_turn(
        &self,
        turn_id: TurnId,
        status: TurnStatus,
        error: Option<&str>,
    ) -> RepoResult<Turn> {
        let error = error.map(str::to_owned);
        self.writer()
            .run(|reply| Write::FinishTurn {
                turn_id,
                status,
                error,
                reply,
            })
            .await
    }

    async fn record_step(&self, step: &NewStep) -> RepoResult<RecordedStep> {
        let step = step.clone();
        self.writer()
            .run(|reply| Write::RecordStep { step, reply })
            .await
    }

    async fn get_turn(&self, turn_id: TurnId) -> RepoResult<Option<Turn>> {
        self.readers()
            .read("reading a turn", move |conn| queries::turn(conn, turn_id))
            .await
    }

    async fn list_turns(&self, conversation_id: ConversationId) -> RepoResult<Vec<Turn>> {
        const ACTION: &str = "listing turns";
        self.readers()
            .read(ACTION, move |conn| {
                queries::all(
                    conn,
                    ACTION,
                    concat!(
                        "SELECT ",
                        turn_columns!(),
                        " FROM turns WHERE conversation_id = ?1 ORDER BY seq"
                    ),
                    [conversation_id.to_string()],
                    rows::turn,
                )
            })
            .await
    }

    async fn heartbeat(&self, turn_id: TurnId, at: Timestamp) -> RepoResult<bool> {
        self.writer()
            .run(|reply| Write::Heartbeat { turn_id, at, reply })
            .await
    }

    async fn running_turns(&self) -> RepoResult<Vec<Turn>> {
        self.readers()
            .read("listing running turns", |conn| {
                queries::running_turns(conn, None)
            })
            .await
    }

    async fn running_turn(&self, conversation_id: ConversationId) -> RepoResult<Option<Turn>> {
        let running = self
            .readers()
            .read("listing running turns", move |conn| {
                queries::running_turns(conn, Some(conversation_id))
            })
            .await?;
        Ok(running.into_iter().next())
    }

    async fn interrupt_turn(&self, turn_id: TurnId) -> RepoResult<bool> {
        self.writer()
            .run(|reply| Write::InterruptTurn { turn_id, reply })
            .await
    }

    async fn turn_contents(&self, turn_id: TurnId) -> RepoResult<Option<TurnContents>> {
        self.readers()
            .read("reading a turn's rows", move |conn| {
                queries::turn_contents(conn, turn_id)
            })
            .await
    }

    async fn replace_user_message(
        &self,
        replacement: &MessageReplacement,
    ) -> RepoResult<(Turn, Message)> {
        let replacement = replacement.clone();
        let (done, discarded) = self
            .writer()
            .run(|reply| Write::ReplaceUserMessage { replacement, reply })
            .await?;
        self.sweep_contents(discarded).await;
        Ok(done)
    }

    async fn restart_turn(&self, restart: &TurnRestart) -> RepoResult<(Turn, Message)> {
        let restart = restart.clone();
        let (done, discarded) = self
            .writer()
            .run(|reply| Write::RestartTurn { restart, reply })
            .await?;
        self.sweep_contents(discarded).await;
        Ok(done)
    }

    async fn mark_turn_undone(&self, undo: &TurnUndo) -> RepoResult<Turn> {
        let undo = *undo;
        self.writer()
            .run(|reply| Write::MarkTurnUndone { undo, reply })
            .await
    }
}
