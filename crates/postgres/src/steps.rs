//! Recording one model step — reasoning, assistant message, requested tool calls and,
//! for the last step, the end of the turn: the rows are built with their places in the
//! step as `seq`s (`prepared_step.rs`), and the writer stores them in one statement
//! (with the steps of other turns queued at the same time, see `write/steps.rs`).

use smallebot_core::entities::{NewStep, RecordedStep};
use smallebot_core::repository::{RepoResult, TurnRepository};

use crate::prepared_step::prepare;
use crate::store::PgStore;
use crate::write::Job;

/// Stores `step`.
pub(crate) async fn record_step(store: &PgStore, step: &NewStep) -> RepoResult<RecordedStep> {
    let count = usize::from(step.reasoning.is_some())
        + usize::from(step.message.is_some())
        + step.tool_calls.len();
    if count == 0 {
        // Nothing to insert: at most the end of the turn.
        return Ok(RecordedStep {
            rows: Vec::new(),
            turn: match &step.end {
                Some(end) => Some(
                    store
                        .finish_turn(step.turn_id, end.status, end.error.as_deref())
                        .await?,
                ),
                None => None,
            },
        });
    }
    let prepared = prepare(step);
    store
        .writer()
        .submit("recording a model step", |reply| {
            Job::RecordStep(Box::new(prepared), reply)
        })
        .await
}
