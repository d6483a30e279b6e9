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
