//! [`TaskPlanService`]: the application's `TaskPlan` port over a [`TaskStore`].
//!
//! - The plan text (re-injected into the system prompt every model step) is
//!   [`format_plan`] of the conversation's list, or nothing when it has no tasks.
//! - What a finished call means for the list is what its tool declares
//!   ([`ToolEffects`]), never guessed from its name: a successful call of a tool that
//!   edits the task list changed it, and the new list is returned so the pipeline emits
//!   `TaskListChanged`; a tool that only reads the list changes nothing.
//! - Any other finished call is recorded on the task in progress, if there is one:
//!   tool, arguments, result cut at 200 characters, timestamp, and — when it succeeded —
//!   the files its tool says it wrote. The pipeline hands over each call with its own
//!   result (matched by call id), so parallel calls finishing in any order are recorded
//!   with the right results.
//! - Store failures are logged and ignored: the plan never fails a turn.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use smallebot_application::ports::{PlanAccess, TaskPlan, ToolEffects};
use smallebot_core::entities::{ToolCall, ToolCallStatus};
use smallebot_core::ids::ConversationId;
use smallebot_core::tasks::{
    CORRUPT_TASK_FILE, TaskList, TaskStore, TaskStoreError, format_plan, record_tool_call,
};

/// The conversation task list as the pipeline's plan.
pub struct TaskPlanService {
    store: Arc<dyn TaskStore>,
}

impl TaskPlanService {
    /// A plan over `store`.
    #[must_use]
    pub fn new(store: Arc<dyn TaskStore>) -> Self {
        Self { store }
    }

    /// The store the plan reads and writes.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    /// The list, or `None` (logged) when it cannot be read.
    async fn load(&self, conversation_id: ConversationId) -> Option<TaskList> {
        match self.store.load(conversation_id).await {
            Ok(list) => Some(list),
            Err(error) => {
                tracing::warn!(%conversation_id, %error, "cannot read the task list");
                None
            }
        }
    }

    /// Records a call on the task in progress; the new list if recorded.
    async fn record(
        &self,
        conversation_id: ConversationId,
        call: &ToolCall,
        written_paths: &[String],
    ) -> Option<TaskList> {
        // Most calls happen with no task in progress: find that out without the lock.
        self.load(conversation_id).await?.active_index()?;
        let args = parse_arguments(&call.arguments);
        let files = if call.status == ToolCallStatus::Ok {
            written_paths.to_vec()
        } else {
            Vec::new()
        };
        let tool = call.tool_name.clone();
        let result = call.result.clone().unwrap_or_default();
        let at = call.completed_at.unwrap_or_else(chrono::Utc::now);
        let update = self
            .store
            .update(
                conversation_id,
                Box::new(move |list| {
                    record_tool_call(list, &tool, &args, &result, &at, &files);
                    Ok(String::new())
                }),
            )
            .await;
        match update {
            Ok(update) if update.written => Some(update.list),
            Ok(_) => None,
            Err(error) => {
                tracing::warn!(%conversation_id, %error, "cannot record the tool call on the task in progress");
                None
            }
        }
    }
}

/// The arguments as JSON; text that is not JSON is kept as a string (`""` is `{}`).
fn parse_arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

#[async_trait]
impl TaskPlan for TaskPlanService {
    async fn plan_text(&self, conversation_id: ConversationId) -> Option<String> {
        match self.store.load(conversation_id).await {
            Ok(list) => (!list.tasks.is_empty()).then(|| format_plan(&list)),
            // Said where the plan is shown (`/tasks`, the prompt), not hidden as "no tasks".
            Err(
                error @ (TaskStoreError::Corrupt { .. } | TaskStoreError::CorruptRecord { .. }),
            ) => Some(format!("{CORRUPT_TASK_FILE} {error}")),
            Err(error) => {
                tracing::warn!(%conversation_id, %error, "cannot read the task list");
                None
            }
        }
    }

    async fn task_list(&self, conversation_id: ConversationId) -> Result<TaskList, TaskStoreError> {
        self.store.load(conversation_id).await
    }

    async fn tool_call_finished(
        &self,
        conversation_id: ConversationId,
        call: &ToolCall,
        effects: &ToolEffects,
    ) -> Option<TaskList> {
        match effects.traits.plan {
            PlanAccess::Edits if call.status == ToolCallStatus::Ok => {
                self.load(conversation_id).await
            }
            PlanAccess::Edits | PlanAccess::Reads => None, // nothing changed
            _ => {
                self.record(conversation_id, call, &effects.written_paths)
                    .await
            }
        }
    }

    async fn conversation_deleted(&self, conversation_id: ConversationId) {
        if let Err(error) = self.store.delete(conversation_id).await {
            tracing::warn!(%conversation_id, %error, "cannot delete the conversation's task list");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_that_are_not_json_are_kept_as_text() {
        let cases = [
            ("", json!({})),
            ("  ", json!({})),
            (r#"{"path":"a"}"#, json!({"path":"a"})),
            ("{oops", json!("{oops")),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_arguments(text), expected, "{text:?}");
        }
    }
}
