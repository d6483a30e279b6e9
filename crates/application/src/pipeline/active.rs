//! One turn at a time per conversation, in this process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use smallebot_core::ids::ConversationId;
use tokio_util::sync::CancellationToken;

use crate::error::PipelineError;

type Registry = Arc<Mutex<HashMap<ConversationId, CancellationToken>>>;

/// The conversations with a running turn (or other exclusive work: a compaction, a
/// deletion) in this process, and how to cancel each. The services of one process
/// share one ([`crate::pipeline::ServiceParts::turns`]), so a request from another
/// process to cancel a turn reaches it whichever service runs it.
#[derive(Debug, Default)]
pub struct ActiveTurns {
    registry: Registry,
}

/// Marks a conversation busy until dropped.
#[derive(Debug)]
pub(crate) struct ActiveGuard {
    registry: Registry,
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
        if let Ok(mut map) = self.registry.lock() {
            map.remove(&self.conversation_id);
        }
    }
}

impl ActiveTurns {
    /// None running yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks `conversation_id` busy, or refuses if it already is.
    pub(crate) fn begin(
        &self,
        conversation_id: ConversationId,
        cancel: Option<CancellationToken>,
    ) -> Result<ActiveGuard, PipelineError> {
        let mut map = self.registry.lock().map_err(|_| PipelineError::Poisoned)?;
        if map.contains_key(&conversation_id) {
            return Err(PipelineError::Busy(conversation_id));
        }
        let cancel = cancel.unwrap_or_default();
        map.insert(conversation_id, cancel.clone());
        Ok(ActiveGuard {
            registry: Arc::clone(&self.registry),
            conversation_id,
            cancel,
        })
    }

    /// Cancels the running turn of `conversation_id` in this process; false when none
    /// runs here.
    pub fn cancel(&self, conversation_id: ConversationId) -> bool {
        self.registry
            .lock()
            .ok()
            .and_then(|map| map.get(&conversation_id).cloned())
            .map(|token| token.cancel())
            .is_some()
    }

    /// Whether a turn (or other exclusive work) runs in `conversation_id` in this
    /// process.
    #[must_use]
    pub fn is_busy(&self, conversation_id: ConversationId) -> bool {
        self.registry
            .lock()
            .map(|map| map.contains_key(&conversation_id))
            .unwrap_or(false)
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
}
