//! Ending a turn: its end stored and described as a [`TurnOutcome`]. The service
//! announces it ([`TurnOutcome::end_event`]) once nothing of the turn is left to do.

use smallebot_core::entities::{AnswerCut, TurnEnd, TurnStatus};

use super::turn::{Partial, TurnOutcome, TurnRun};
use crate::error::PipelineError;
use crate::events::EventKind;
use crate::ports::ModelResponse;

impl TurnRun<'_> {
    /// Stores the last step's answer and the end of the turn together. An answer a
    /// limit cut is kept as far as it came and the turn is marked cut; the tool calls
    /// such a step began are not run (their arguments may be cut too), and what the
    /// server said about the cut is passed on as a warning.
    pub(super) async fn complete(
        &mut self,
        response: ModelResponse,
    ) -> Result<TurnOutcome, PipelineError> {
        let end = TurnEnd {
            status: TurnStatus::Completed,
            error: None,
            cut: response.cut,
        };
        if let Some(message) = cut_warning(&response) {
            self.emit(EventKind::Warning { message });
        }
        self.record_step(&response.reasoning, &response.text, &[], Some(end))
            .await?;
        let mut outcome = self.outcome(TurnStatus::Completed, response.text, None);
        outcome.cut = response.cut;
        Ok(outcome)
    }

    /// Stores what a cancelled step streamed (reasoning, text) and ends the turn
    /// `cancelled`, in one transaction.
    pub(super) async fn cancel_keeping(
        &mut self,
        partial: Partial,
    ) -> Result<TurnOutcome, PipelineError> {
        let end = TurnEnd {
            status: TurnStatus::Cancelled,
            error: None,
            cut: None,
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
            cut: None,
        }
    }
}

/// What a cut answer's end marker (`TurnCompleted`'s `cut`) does not say: the
/// server's own words about the cut, and tool calls left unrun. `None` when there is
/// nothing more to say.
fn cut_warning(response: &ModelResponse) -> Option<String> {
    let cut = response.cut?;
    let detail = response.cut_detail.as_deref();
    if detail.is_none() && response.tool_calls.is_empty() {
        return None;
    }
    let said = detail.map_or_else(String::new, |d| format!(" The server said: \"{d}\"."));
    let unrun = match response.tool_calls.len() {
        0 => String::new(),
        n => format!(" The {n} tool call(s) it was writing were not run."),
    };
    let what = match cut {
        AnswerCut::ContextFull => "the model server's context filled up while it wrote",
        _ => "it reached the output limit",
    };
    Some(format!("The answer was cut: {what}.{said}{unrun}"))
}

impl TurnOutcome {
    /// How the turn ended, in one word: `completed`, `cancelled` or `failed` (the
    /// event [`Self::end_event`] gives).
    pub(super) fn end_word(&self) -> &'static str {
        match self.status {
            TurnStatus::Completed => "completed",
            TurnStatus::Cancelled => "cancelled",
            _ => "failed",
        }
    }

    /// The event that tells subscribers how the turn ended.
    pub(super) fn end_event(&self) -> EventKind {
        match (&self.status, &self.error) {
            (TurnStatus::Completed, _) => EventKind::TurnCompleted {
                text: self.text.clone(),
                cut: self.cut.map(crate::wire::bodies::answer_cut),
            },
            (TurnStatus::Cancelled, _) => EventKind::TurnCancelled,
            (_, error) => EventKind::TurnFailed {
                error: error.clone().unwrap_or_else(|| "the turn failed".into()),
            },
        }
    }
}
