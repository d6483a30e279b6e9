//! [`TaskPlanService`]: the application's `TaskPlan` port over a [`TaskStore`].
//!
//! - The plan text (re-injected into the system prompt every model step) is
//!   [`format_plan`] of the conversation's list, or nothing when it has no tasks.
//! - A finished task tool call (other than `ListTasks`) that succeeded changed the
//!   list: the new plan is returned so the pipeline emits `TaskListChanged`.
//! - Any other finished call is recorded on the task in progress, if there is one:
//!   tool, arguments, result cut at 200 characters, timestamp, and the files it wrote
//!   ([`detect_generated_files`], relative paths resolved against the workspace root).
//!   The pipeline hands over each call with its own result (matched by call id), so
//!   parallel calls finishing in any order are recorded with the right results.
//! - Store failures are logged and ignored: the plan never fails a turn.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use smallebot_application::ports::TaskPlan;
use smallebot_core::entities::{ToolCall, ToolCallStatus};
use smallebot_core::ids::ConversationId;
use smallebot_core::tasks::{
    LIST_TASKS, TaskList, TaskStore, detect_generated_files, format_plan, is_task_tool,
    record_tool_call,
};

/// The conversation task list as the pipeline's plan.
pub struct TaskPlanService {
    store: Arc<dyn TaskStore>,
    workspace_root: String,
}

impl TaskPlanService {
    /// A plan over `store`; relative paths in tool arguments (and `workingDirectory`)
    /// are resolved against `workspace_root`, made absolute here.
    #[must_use]
    pub fn new(store: Arc<dyn TaskStore>, workspace_root: &Path) -> Self {
        let root: PathBuf =
            std::path::absolute(workspace_root).unwrap_or_else(|_| workspace_root.to_owned());
        Self {
            store,
            workspace_root: root.to_string_lossy().into_owned(),
        }
    }

    /// The store the plan reads and writes.
    #[must_use]
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    /// The absolute workspace root used to resolve relative paths.
    #[must_use]
    pub fn workspace_root(&self) -> &str {
        &self.workspace_root
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

    /// Records a non-task tool call on the task in progress; the new plan if recorded.
    async fn record(&self, conversation_id: ConversationId, call: &ToolCall) -> Option<String> {
        // Most calls happen with no task in progress: find that out without the lock.
        self.load(conversation_id).await?.active_index()?;
        let args = parse_arguments(&call.arguments);
        let files = detect_generated_files(
            &call.tool_name,
            &args,
            &self.workspace_root,
            call.status == ToolCallStatus::Ok,
        );
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
            Ok(update) if update.written => Some(format_plan(&update.list)),
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
        let list = self.load(conversation_id).await?;
        (!list.tasks.is_empty()).then(|| format_plan(&list))
    }

    async fn tool_call_finished(
        &self,
        conversation_id: ConversationId,
        call: &ToolCall,
    ) -> Option<String> {
        if is_task_tool(&call.tool_name) {
            if call.tool_name == LIST_TASKS || call.status != ToolCallStatus::Ok {
                return None; // nothing changed
            }
            return self.load(conversation_id).await.map(|l| format_plan(&l));
        }
        self.record(conversation_id, call).await
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
