//! One turn at a time per conversation in this process, and the shutdown: no new work once
//! closed, the running turns cancelled as interrupted, and a wait until none is left.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use smallebot_core::ids::ConversationId;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::error::PipelineError;

/// The running work, and whether new work is still taken.
#[derive(Debug, Default)]
struct Running {
    turns: HashMap<ConversationId, CancellationToken>,
    closed: bool,
}

/// What the guards share with the registry.
#[derive(Debug, Default)]
struct Shared {
    running: Mutex<Running>,
    /// Told whenever the last running work ends.
    idle: Notify,
}

/// The conversations with a running turn (or other exclusive work: a compaction, a
/// deletion) in this process, and how to cancel each. The services of one process
/// share one ([`crate::pipeline::ServiceParts::turns`]), so a request from another
/// process to cancel a turn reaches it whichever service runs it, and a shutdown
/// reaches every service's turns.
#[derive(Debug, Default)]
pub struct ActiveTurns {
    shared: Arc<Shared>,
    /// Cancelled when the service stops: the running turns were cancelled because the
    /// process is stopping (their unfinished tool calls end `interrupted`).
    stopping: CancellationToken,
}

/// Marks a conversation busy until dropped.
#[derive(Debug)]
pub(crate) struct ActiveGuard {
    shared: Arc<Shared>,
    conversation_id: ConversationId,
    cancel: CancellationToken,
}

impl ActiveGuard {
    /// The token that cancels this turn.
    pub(crate) fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }
}

impl Drop for ActiveGuard {
    fn drop(&mut self) {
        if let Ok(mut running) = self.shared.running.lock() {
            running.turns.remove(&self.conversation_id);
            if running.turns.is_empty() {
                self.shared.idle.notify_waiters();
            }
        }
    }
}

impl ActiveTurns {
    /// None running yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks `conversation_id` busy, or refuses if it already is or the service is
    /// closed.
    pub(crate) fn begin(
        &self,
        conversation_id: ConversationId,
        cancel: Option<CancellationToken>,
    ) -> Result<ActiveGuard, PipelineError> {
        let mut running = self
            .shared
            .running
            .lock()
            .map_err(|_| PipelineError::Poisoned)?;
        if running.closed {
            return Err(PipelineError::ShuttingDown);
        }
        if running.turns.contains_key(&conversation_id) {
            return Err(PipelineError::Busy(conversation_id));
        }
        let cancel = cancel.unwrap_or_default();
        running.turns.insert(conversation_id, cancel.clone());
        Ok(ActiveGuard {
            shared: Arc::clone(&self.shared),
            conversation_id,
            cancel,
        })
    }

    /// Cancels the running turn of `conversation_id` in this process; false when none
    /// runs here.
    pub fn cancel(&self, conversation_id: ConversationId) -> bool {
        self.shared
            .running
            .lock()
            .ok()
            .and_then(|running| running.turns.get(&conversation_id).cloned())
            .map(|token| token.cancel())
            .is_some()
    }

    /// Whether a turn (or other exclusive work) runs in `conversation_id` in this
    /// process.
    #[must_use]
    pub fn is_busy(&self, conversation_id: ConversationId) -> bool {
        self.shared
            .running
            .lock()
            .map(|running| running.turns.contains_key(&conversation_id))
            .unwrap_or(false)
    }

    /// Takes no new work from now on ([`PipelineError::ShuttingDown`]); what runs goes
    /// on.
    pub(crate) fn close(&self) {
        if let Ok(mut running) = self.shared.running.lock() {
            running.closed = true;
        }
    }

    /// Closes, and cancels every running turn because the process is stopping; returns
    /// how many were running.
    pub(crate) fn interrupt_all(&self) -> usize {
        let Ok(mut running) = self.shared.running.lock() else {
            return 0;
        };
        running.closed = true;
        // Before the turns' tokens: a turn that sees its cancellation sees why.
        self.stopping.cancel();
        for token in running.turns.values() {
            token.cancel();
        }
        running.turns.len()
    }

    /// The token cancelled by [`ActiveTurns::interrupt_all`].
    pub(crate) fn stopping(&self) -> &CancellationToken {
        &self.stopping
    }

    /// How much work runs now.
    pub(crate) fn running(&self) -> usize {
        self.shared
            .running
            .lock()
            .map(|running| running.turns.len())
            .unwrap_or(0)
    }

    /// Returns once no work runs.
    pub(crate) async fn idle(&self) {
        loop {
            let notified = self.shared.idle.notified();
            tokio::pin!(notified);
            // Registered before looking: an end between the look and the wait is heard.
            notified.as_mut().enable();
            if self.running() == 0 {
                return;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_begin_is_busy_until_the_guard_drops() {
        let active = ActiveTurns::default();
        let id = ConversationId::new();
        let guard = active.begin(id, None).unwrap();
        assert!(matches!(
            active.begin(id, None),
            Err(PipelineError::Busy(_))
        ));
        assert!(active.begin(ConversationId::new(), None).is_ok());
        assert!(active.cancel(id));
        assert!(guard.cancel_token().is_cancelled());
        drop(guard);
        assert!(!active.is_busy(id));
        assert!(!active.cancel(id));
        assert!(active.begin(id, None).is_ok());
    }

    #[tokio::test]
    async fn closing_refuses_new_work_and_interrupting_cancels_the_running() {
        let active = ActiveTurns::default();
        let first = active.begin(ConversationId::new(), None).unwrap();
        active.close();
        assert!(matches!(
            active.begin(ConversationId::new(), None),
            Err(PipelineError::ShuttingDown)
        ));
        assert!(!first.cancel_token().is_cancelled());
        assert!(!active.stopping().is_cancelled());
        assert_eq!(active.interrupt_all(), 1);
        assert!(first.cancel_token().is_cancelled());
        assert!(active.stopping().is_cancelled());
        let waiting = tokio::spawn({
            let shared = Arc::clone(&active.shared);
            async move {
                let active = ActiveTurns {
                    shared,
                    stopping: CancellationToken::new(),
                };
                active.idle().await;
            }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(first);
        tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .expect("idle once the last turn ended")
            .unwrap();
        active.idle().await;
    }
}
