//! The task list tools (docs/design.md §6): `ListTasks`, `AddTask`, `StartTask`,
//! `CompleteTask`, `UncompleteTask`, `DeleteTask`.
//!
//! The conversation is the call's `ToolContext::conversation_id`; outside a
//! conversation every tool answers [`NO_CONVERSATION_CONTEXT`]. Results are the exact
//! strings of [`smallebot_core::tasks::results`]; a refused change writes nothing.
//! `ListTasks` declares that it reads the task list, the others that they edit it, so
//! plan tracking does not record their calls on the task in progress.

use std::sync::Arc;

use async_trait::async_trait;
use smallebot_application::ports::{PlanAccess, ToolContext, ToolOutcome, ToolTraits};
use smallebot_core::ids::ConversationId;
use smallebot_core::tasks::{
    CORRUPT_TASK_FILE, NO_CONVERSATION_CONTEXT, TaskEdit, TaskError, TaskList, TaskStore,
    TaskStoreError, added_result, error_result, list_result, ok_result, ok_task_result,
};

mod args;

pub use args::{AddTaskArgs, CompleteTaskArgs, TaskIdArgs};

use super::tool::Tool;
use super::typed::{NoArgs, TypedTool};

/// All six task tools over one store, in the order they are offered to the model.
#[must_use]
pub fn task_tools(store: &Arc<dyn TaskStore>) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ListTasks::new(Arc::clone(store))),
        Arc::new(AddTask::new(Arc::clone(store))),
        Arc::new(StartTask::new(Arc::clone(store))),
        Arc::new(CompleteTask::new(Arc::clone(store))),
        Arc::new(UncompleteTask::new(Arc::clone(store))),
        Arc::new(DeleteTask::new(Arc::clone(store))),
    ]
}

macro_rules! task_tool {
    ($(#[$meta:meta])* $name:ident, $access:expr) => {
        $(#[$meta])*
        pub struct $name {
            store: Arc<dyn TaskStore>,
        }

        impl $name {
            /// The name the model calls it by.
            pub const NAME: &'static str = stringify!($name);
            /// How it touches the task list.
            const TRAITS: ToolTraits = ToolTraits::plan($access);

            /// The tool over the conversations' task lists in `store`.
            #[must_use]
            pub fn new(store: Arc<dyn TaskStore>) -> Self {
                Self { store }
            }
        }
    };
}

task_tool!(
    /// `ListTasks()`: the task list as `{"tasks":[…]}`.
    ListTasks,
    PlanAccess::Reads
);
task_tool!(
    /// `AddTask(title, description?, dependsOn?)`: adds a pending task, returns it.
    AddTask,
    PlanAccess::Edits
);
task_tool!(
    /// `StartTask(taskId)`: marks a task in progress; tool calls are recorded on it.
    StartTask,
    PlanAccess::Edits
);
task_tool!(
    /// `CompleteTask(taskId, notes?)`: marks a task done.
    CompleteTask,
    PlanAccess::Edits
);
task_tool!(
    /// `UncompleteTask(taskId)`: puts a task back to pending.
    UncompleteTask,
    PlanAccess::Edits
);
task_tool!(
    /// `DeleteTask(taskId)`: removes a task nobody depends on.
    DeleteTask,
    PlanAccess::Edits
);

/// The call's conversation, or the original app's "no conversation context" answer.
fn turn_conversation(context: &ToolContext) -> Result<ConversationId, ToolOutcome> {
    context
        .conversation_id
        .ok_or_else(|| ToolOutcome::error(NO_CONVERSATION_CONTEXT))
}

/// Runs `edit` on the conversation's list and turns the answer into an outcome.
async fn edit_list(
    store: &dyn TaskStore,
    conversation: ConversationId,
    edit: TaskEdit,
) -> ToolOutcome {
    match store.update(conversation, edit).await {
        Ok(update) => match update.recovered {
            Some(note) => ToolOutcome::ok(with_warning(&update.output, &note)),
            None => ToolOutcome::ok(update.output),
        },
        Err(error) => store_error(&error),
    }
}

/// A JSON result with `"warning": note` added (other text gets the note appended).
fn with_warning(output: &str, note: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(output) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.insert("warning".into(), serde_json::Value::String(note.to_owned()));
            serde_json::Value::Object(map).to_string()
        }
        _ => format!("{output}\nWarning: {note}"),
    }
}

/// The shape of the tools that change one task: `edit` on the conversation's list
/// (nothing is written when it refuses).
async fn edit_task(
    store: &dyn TaskStore,
    id: String,
    context: &ToolContext,
    edit: impl FnOnce(&mut TaskList, &str) -> Result<String, TaskError> + Send + 'static,
) -> ToolOutcome {
    match turn_conversation(context) {
        Ok(conversation) => {
            edit_list(store, conversation, Box::new(move |list| edit(list, &id))).await
        }
        Err(outcome) => outcome,
    }
}

/// The answer for a store failure: the original app's strings where it has one.
fn store_error(error: &TaskStoreError) -> ToolOutcome {
    match error {
        TaskStoreError::Rejected(refused) => ToolOutcome::error(error_result(refused)),
        TaskStoreError::Corrupt { .. } | TaskStoreError::CorruptRecord { .. } => {
            tracing::warn!(%error, "task tool met a corrupt task file");
            ToolOutcome::error(format!("{CORRUPT_TASK_FILE} {error}"))
        }
        _ => {
            tracing::warn!(%error, "task tool could not read or write the task file");
            ToolOutcome::error(format!("Error: the task list is unavailable: {error}"))
        }
    }
}

#[async_trait]
impl TypedTool for ListTasks {
    type Args = NoArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn description(&self) -> String {
        "List this conversation's task list — the plan — as JSON \
                {\"tasks\":[…]}. Each task has id, title, description, status (pending, \
                in_progress, done, blocked), done, dependsOn (ids that must be done first), \
                notes, toolHistory (the tool calls recorded while it was in progress) and \
                files (the files those calls wrote). The current plan is also shown under \
                '# Task List' at the end of the newest message."
            .into()
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn unavailable(&self, context: &ToolContext) -> Option<ToolOutcome> {
        turn_conversation(context).err()
    }

    async fn run(&self, _args: NoArgs, context: &ToolContext) -> ToolOutcome {
        let conversation = match turn_conversation(context) {
            Ok(id) => id,
            Err(outcome) => return outcome,
        };
        match self.store.load(conversation).await {
            Ok(list) => ToolOutcome::ok(list_result(&list)),
            Err(error) => store_error(&error),
        }
    }
}

#[async_trait]
impl TypedTool for AddTask {
    type Args = AddTaskArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn description(&self) -> String {
        "Add a task to this conversation's task list. The task list is the \
                plan: for work that takes several steps, add one task per step first, then \
                work through them with StartTask and CompleteTask. Returns the new task (ids \
                are \"1\", \"2\", …). dependsOn names tasks that must be done before this one \
                can start; they must exist and must not form a cycle."
            .into()
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn unavailable(&self, context: &ToolContext) -> Option<ToolOutcome> {
        turn_conversation(context).err()
    }

    async fn run(&self, args: AddTaskArgs, context: &ToolContext) -> ToolOutcome {
        let conversation = match turn_conversation(context) {
            Ok(id) => id,
            Err(outcome) => return outcome,
        };
        let AddTaskArgs {
            title,
            description,
            depends_on,
        } = args;
        let description = description.unwrap_or_default();
        edit_list(
            self.store.as_ref(),
            conversation,
            Box::new(move |list| {
                Ok(added_result(&list.add(
                    &title,
                    &description,
                    &depends_on,
                )?))
            }),
        )
        .await
    }
}

#[async_trait]
impl TypedTool for StartTask {
    type Args = TaskIdArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn description(&self) -> String {
        "Mark a task in progress. Call it before working on a task: while the task is in \
             progress, every tool call you make in this conversation (except the task tools) \
             is recorded on it automatically, with the files the call wrote. Refused while \
             any of its dependencies is not done (the error names them). Returns \
             {\"ok\":true,\"task\":…}."
            .into()
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn unavailable(&self, context: &ToolContext) -> Option<ToolOutcome> {
        turn_conversation(context).err()
    }

    async fn run(&self, args: TaskIdArgs, context: &ToolContext) -> ToolOutcome {
        edit_task(self.store.as_ref(), args.task_id, context, |list, id| {
            Ok(ok_task_result(&list.start(id)?))
        })
        .await
    }
}

#[async_trait]
impl TypedTool for CompleteTask {
    type Args = CompleteTaskArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn description(&self) -> String {
        "Mark a task done when its work is finished, optionally with notes on the outcome \
             (what was found, produced or decided; shown in the plan). Returns \
             {\"ok\":true,\"task\":…}, or {\"ok\":false,\"error\":\"Task not found\"}."
            .into()
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn unavailable(&self, context: &ToolContext) -> Option<ToolOutcome> {
        turn_conversation(context).err()
    }

    async fn run(&self, args: CompleteTaskArgs, context: &ToolContext) -> ToolOutcome {
        let notes = args.notes;
        edit_task(
            self.store.as_ref(),
            args.task_id,
            context,
            move |list, id| Ok(ok_task_result(&list.complete(id, notes)?)),
        )
        .await
    }
}

#[async_trait]
impl TypedTool for UncompleteTask {
    type Args = TaskIdArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn description(&self) -> String {
        "Put a task back to pending (not done), e.g. when its result turned out to be \
             wrong and it must be redone. Returns {\"ok\":true,\"task\":…}."
            .into()
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn unavailable(&self, context: &ToolContext) -> Option<ToolOutcome> {
        turn_conversation(context).err()
    }

    async fn run(&self, args: TaskIdArgs, context: &ToolContext) -> ToolOutcome {
        edit_task(self.store.as_ref(), args.task_id, context, |list, id| {
            Ok(ok_task_result(&list.uncomplete(id)?))
        })
        .await
    }
}

#[async_trait]
impl TypedTool for DeleteTask {
    type Args = TaskIdArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn description(&self) -> String {
        "Remove a task from the task list. Refused while other tasks depend on it (the \
             error names them; delete those first). Returns {\"ok\":true}."
            .into()
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn unavailable(&self, context: &ToolContext) -> Option<ToolOutcome> {
        turn_conversation(context).err()
    }

    async fn run(&self, args: TaskIdArgs, context: &ToolContext) -> ToolOutcome {
        edit_task(self.store.as_ref(), args.task_id, context, |list, id| {
            list.delete(id)?;
            Ok(ok_result())
        })
        .await
    }
}
