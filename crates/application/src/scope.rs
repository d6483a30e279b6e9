//! The conversation id of the running turn, carried in a task-local scope (the Rust form
//! of the seed's `AsyncLocal`). Tools read it with [`current_conversation`]; outside a
//! turn there is none, and they answer with their "no conversation context" error.

use std::future::Future;

use smallebot_core::ids::ConversationId;

tokio::task_local! {
    static CURRENT_CONVERSATION: ConversationId;
}

/// Runs `future` with `conversation_id` as the current conversation.
pub async fn with_conversation<F: Future>(conversation_id: ConversationId, future: F) -> F::Output {
    CURRENT_CONVERSATION.scope(conversation_id, future).await
}

/// The conversation of the turn this code runs in, if any.
#[must_use]
pub fn current_conversation() -> Option<ConversationId> {
    CURRENT_CONVERSATION.try_with(|id| *id).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_inside_the_scope() {
        assert_eq!(current_conversation(), None);
        let id = ConversationId::new();
        let seen = with_conversation(id, async { current_conversation() }).await;
        assert_eq!(seen, Some(id));
        assert_eq!(current_conversation(), None);
    }
}
