//! The task list (plan) port.

use async_trait::async_trait;
use smallebot_core::entities::ToolCall;
use smallebot_core::ids::ConversationId;

use super::tools::ToolEffects;

/// The conversation's task list as the pipeline sees it.
#[async_trait]
pub trait TaskPlan: Send + Sync {
    /// The plan as displayed (re-injected into the system prompt every step), or
    /// `None` when the conversation has no tasks.
    async fn plan_text(&self, conversation_id: ConversationId) -> Option<String>;

    /// A tool call of the conversation finished, with what its tool declares it does:
    /// record it on the task in progress. Returns the new plan text when the task list
    /// changed.
    async fn tool_call_finished(
        &self,
        conversation_id: ConversationId,
        call: &ToolCall,
        effects: &ToolEffects,
    ) -> Option<String>;

    /// The conversation was deleted: forget its task list.
    async fn conversation_deleted(&self, conversation_id: ConversationId);
}
