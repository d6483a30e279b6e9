//! Ending a turn: its end stored and described as a [`TurnOutcome`]. The service
//! announces it ([`TurnOutcome::end_event`]) once nothing of the turn is left to do.

use smallebot_core::entities::{TurnEnd, TurnStatus};

use super::turn::{Partial, TurnOutcome, TurnRun};
use crate::error::PipelineError;
use crate::events::EventKind;

impl TurnRun<'_> {
    /// Stores what a cancelled step streamed (reasoning, text) and ends the turn
    /// `cancelled`, in one transaction.
    pub(super) async fn cancel_keeping(
        &mut self,
        partial: Partial,
    ) -> Result<TurnOutcome, PipelineError> {
        let end = TurnEnd {
            status: TurnStatus::Cancelled,
            error: None,
        };
        self.record_step(&partial.reasoning, &partial.text, &[], Some(end))
            .await?;
        Ok(self.outcome(TurnStatus::Cancelled, partial.text, None))
    }

    /// Ends the turn with `status` (and the error of a failed one).
    pub(super) async fn finish(
        &self,
        status: TurnStatus,
        text: String,
        error: Option<String>,
    ) -> Result<TurnOutcome, PipelineError> {
        // After the tool results still being written (the end comes last).
        self.settle_results().await?;
        self.context
            .store
            .finish_turn(self.turn.id, status, error.as_deref())
            .await?;
        Ok(self.outcome(status, text, error))
    }

    /// Describes the end of the turn, stored already.
    pub(super) fn outcome(
        &self,
        status: TurnStatus,
        text: String,
        error: Option<String>,
    ) -> TurnOutcome {
        TurnOutcome {
            turn_id: self.turn.id,
            // A conversation's sequence starts at 1: its first turn has seq 1.
            first_turn: self.turn.seq == 1,
            status,
            text,
            error,
        }
    }
}

impl TurnOutcome {
    /// The event that tells subscribers how the turn ended.
    pub(super) fn end_event(&self) -> EventKind {
        match (&self.status, &self.error) {
            (TurnStatus::Completed, _) => EventKind::TurnCompleted {
                text: self.text.clone(),
            },
            (TurnStatus::Cancelled, _) => EventKind::TurnCancelled,
            (_, error) => EventKind::TurnFailed {
                error: error.clone().unwrap_or_else(|| "the turn failed".into()),
            },
        }
    }
}
