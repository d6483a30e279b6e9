//! The task list (plan) port.

use async_trait::async_trait;
use smallebot_core::entities::ToolCall;
use smallebot_core::ids::ConversationId;
use smallebot_core::tasks::{TaskList, TaskStoreError};

use super::tools::ToolEffects;

/// The conversation's task list as the pipeline sees it.
#[async_trait]
pub trait TaskPlan: Send + Sync {
    /// The plan as displayed (re-injected into the system prompt every step), or
    /// `None` when the conversation has no tasks.
    async fn plan_text(&self, conversation_id: ConversationId) -> Option<String>;

    /// The conversation's task list as it is stored (empty when it has none), for a
    /// front end that renders it.
    ///
    /// # Errors
    /// The list cannot be read (a corrupt file is kept and said so).
    async fn task_list(&self, conversation_id: ConversationId) -> Result<TaskList, TaskStoreError>;

    /// A tool call of the conversation finished, with what its tool declares it does:
    /// record it on the task in progress. Returns the new list when it changed.
    async fn tool_call_finished(
        &self,
        conversation_id: ConversationId,
        call: &ToolCall,
        effects: &ToolEffects,
    ) -> Option<TaskList>;

    /// The conversation was deleted: forget its task list.
    async fn conversation_deleted(&self, conversation_id: ConversationId);
}
