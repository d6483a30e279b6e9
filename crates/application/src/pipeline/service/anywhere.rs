//! Busy and cancel for a turn that may run in another process on the same database.
//!
//! `busy` is read from the store: the running turn row and its lease are the record
//! every process writes (the same check refuses a second turn with 409), so no process
//! has to be asked. `cancel` needs the owner: a turn's cancellation token lives in the
//! process that runs it, so another process asks its peers through the
//! [`PeerTurns`](crate::ports::PeerTurns) port, and the owner cancels and answers.

use smallebot_core::entities::Turn;
use smallebot_core::ids::ConversationId;

use super::ConversationService;
use crate::error::PipelineError;

impl ConversationService {
    /// Whether a turn runs in the conversation in any process: here, or a running turn
    /// in the store whose lease is live (another process on the same database; a turn
    /// whose owner is gone is not busy, the next start takes over).
    ///
    /// # Errors
    /// Storage failures.
    pub async fn is_busy_anywhere(
        &self,
        conversation_id: ConversationId,
    ) -> Result<bool, PipelineError> {
        if self.is_busy(conversation_id) {
            return Ok(true);
        }
        Ok(self.live_running_turn(conversation_id).await?.is_some())
    }

    /// Cancels the running turn of the conversation wherever it runs: here, or — with
    /// peers ([`super::ServiceParts::peers`]) — in the process that runs it, which is
    /// asked and answers. The partial answer is kept and the turn ends `cancelled`, as
    /// with [`Self::cancel`]. False when no turn runs, or its owner did not answer.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn cancel_anywhere(
        &self,
        conversation_id: ConversationId,
    ) -> Result<bool, PipelineError> {
        if self.cancel(conversation_id) {
            return Ok(true);
        }
        let Some(peers) = &self.peers else {
            return Ok(false);
        };
        match self.live_running_turn(conversation_id).await? {
            Some(turn) if !self.runs_here(&turn) => Ok(peers.cancel(conversation_id).await),
            _ => Ok(false),
        }
    }

    /// The conversation's running turn in the store, when its owner still holds it.
    async fn live_running_turn(
        &self,
        conversation_id: ConversationId,
    ) -> Result<Option<Turn>, PipelineError> {
        let running = self.context.store.running_turn(conversation_id).await?;
        Ok(running.filter(|turn| !self.lease.abandoned(turn)))
    }

    /// Whether `turn` is owned by this process (no peer to ask).
    fn runs_here(&self, turn: &Turn) -> bool {
        turn.lease
            .as_ref()
            .is_some_and(|lease| lease.owner == self.lease.owner)
    }
}
