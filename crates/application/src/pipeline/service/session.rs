//! The session hooks: `SessionStart` and `SessionEnd`, run when a front end begins or
//! stops running a conversation.

use std::sync::Arc;

use smallebot_core::ids::ConversationId;
use smallebot_core::rules::hook::{HookEvent, HookInput, HookResult};

use super::ConversationService;

impl ConversationService {
    /// Runs the `SessionStart` hooks of `conversation_id` (`trigger`: `startup` for a
    /// new conversation, `resume` for one continued); the person is warned of hooks
    /// that failed. What they add (`additionalContext`) goes with the session's next
    /// prompt, stored in its message. The front ends call it when they begin a
    /// conversation (`run`, `chat`).
    pub async fn session_started(&self, conversation_id: ConversationId, trigger: &str) {
        let result = self
            .session_hooks(HookEvent::SessionStart, conversation_id, trigger)
            .await;
        if let Some(context) = result.additional_context {
            self.context
                .session_context
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(conversation_id, context);
        }
    }

    /// Runs the `SessionEnd` hooks of `conversation_id` (`trigger`: why it ended, say
    /// `exit`), when a front end stops running it.
    pub async fn session_ended(&self, conversation_id: ConversationId, trigger: &str) {
        self.context
            .session_context
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&conversation_id);
        self.session_hooks(HookEvent::SessionEnd, conversation_id, trigger)
            .await;
    }

    async fn session_hooks(
        &self,
        event: HookEvent,
        conversation_id: ConversationId,
        trigger: &str,
    ) -> HookResult {
        let mut input = HookInput::new(
            event,
            String::new(),
            Some(conversation_id.to_string()),
            None,
        );
        input.trigger = Some(trigger.to_owned());
        let cancel = self.context.stopping.child_token();
        self.context
            .run_hooks(event, input, conversation_id, None, &cancel)
            .await
    }
}

/// The sessions a server runs (`serve`): a conversation's session starts on its first
/// turn since the server started (`startup` when it has no turn yet, `resume`
/// otherwise) and ends when the server stops (`shutdown`), in the service that ran it.
#[derive(Default)]
pub struct ServedSessions {
    started: std::sync::Mutex<Vec<(ConversationId, Arc<ConversationService>)>>,
}

impl ServedSessions {
    /// No session started yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Before a turn of `conversation_id` in `service` starts: runs its `SessionStart`
    /// hooks if it is the conversation's first turn since the server started. Without
    /// session hooks it does nothing at all: no store read delays the turn (nor waits
    /// out an unreachable database before the turn's own error).
    pub async fn turn_starting(
        &self,
        service: &Arc<ConversationService>,
        conversation_id: ConversationId,
    ) {
        if !service.context.has_hooks(HookEvent::SessionStart)
            && !service.context.has_hooks(HookEvent::SessionEnd)
        {
            return;
        }
        {
            let mut started = self
                .started
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if started.iter().any(|(id, _)| *id == conversation_id) {
                return;
            }
            started.push((conversation_id, Arc::clone(service)));
        }
        let trigger = match service.store().list_turns(conversation_id).await {
            Ok(turns) if turns.is_empty() => "startup",
            _ => "resume",
        };
        service.session_started(conversation_id, trigger).await;
    }

    /// When the server stops: runs the `SessionEnd` hooks (`shutdown`) of every
    /// conversation whose session started, in the order they started.
    pub async fn end_all(&self) {
        let started = std::mem::take(
            &mut *self
                .started
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for (conversation_id, service) in started {
            service.session_ended(conversation_id, "shutdown").await;
        }
    }
}
