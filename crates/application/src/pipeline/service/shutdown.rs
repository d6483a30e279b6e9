//! Stopping the service with its process: no new work, the running turns let finish
//! or cancelled as interrupted, and a wait until none is left.

use std::sync::Arc;

use super::ConversationService;
#[cfg(doc)]
use crate::error::PipelineError;
#[cfg(doc)]
use crate::pipeline::ServiceParts;

impl ConversationService {
    /// Takes no new turns from now on (nor compactions or deletions): they fail with
    /// [`PipelineError::ShuttingDown`]. The running turns go on (see
    /// [`ConversationService::idle`]). For a shutdown that lets them finish.
    pub fn close(&self) {
        self.active.close();
    }

    /// Closes (as [`ConversationService::close`]) and cancels every running turn
    /// because the process is stopping: each keeps its partial answer and ends
    /// `cancelled`, and its tool calls that had not finished end `interrupted`. Returns
    /// how many turns (and other work) were running; wait for them with
    /// [`ConversationService::idle`] before the process exits.
    pub fn interrupt_all(&self) -> usize {
        self.active.interrupt_all()
    }

    /// Whether `other` keeps its running turns in the same registry as this service
    /// (services of one process given the same [`ServiceParts::turns`]): closing or
    /// interrupting one then reaches the other's turns too.
    #[must_use]
    pub fn shares_turns_with(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.active, &other.active)
    }

    /// How many turns (and compactions, deletions) run now.
    #[must_use]
    pub fn running(&self) -> usize {
        self.active.running()
    }

    /// Returns once no turn (nor compaction or deletion) runs in this service.
    pub async fn idle(&self) {
        self.active.idle().await;
    }
}

/// How long cancelled turns may take to end once cancelled: a tool gets a few seconds
/// after its turn's cancellation (the pipeline's grace), a killed command is reaped
/// within two.
pub const CANCEL_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Some turns did not end within [`CANCEL_WAIT`] of their cancellation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "warning: some turns did not end within {} s of their cancellation; they stay \
     `running` until the next start marks them interrupted",
    CANCEL_WAIT.as_secs()
)]
pub struct TurnsStillRunning;

/// Cancels every running turn of `services` because the process stops, and waits (at
/// most [`CANCEL_WAIT`]) until they have ended and are stored.
///
/// # Errors
/// Some did not end in time (they are left for the next start to mark interrupted).
pub async fn interrupt_and_wait(
    services: &[Arc<ConversationService>],
) -> Result<(), TurnsStillRunning> {
    for service in services {
        service.interrupt_all();
    }
    tokio::time::timeout(CANCEL_WAIT, all_idle(services))
        .await
        .map_err(|_| TurnsStillRunning)
}

/// Returns once no turn runs in any of `services`.
pub async fn all_idle(services: &[Arc<ConversationService>]) {
    for service in services {
        service.idle().await;
    }
}
