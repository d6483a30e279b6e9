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
use serde_json::{Value, json};
use smallebot_application::ports::{PlanAccess, ToolContext, ToolOutcome, ToolSchema, ToolTraits};
use smallebot_core::ids::ConversationId;
use smallebot_core::tasks::{
    CORRUPT_TASK_FILE, NO_CONVERSATION_CONTEXT, TaskEdit, TaskError, TaskList, TaskStore,
    TaskStoreError, added_result, error_result, list_result, ok_result, ok_task_result,
};

use super::args::{ArgError, Args};
use super::registry::Tool;

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

const TASK_ID_DESCRIPTION: &str = "The task's id as returned by AddTask or ListTasks, e.g. \"1\".";

fn task_id_schema(name: &str, description: &str) -> ToolSchema {
    ToolSchema {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters: json!({
            "type": "object",
            "properties": {"taskId": {"type": "string", "description": TASK_ID_DESCRIPTION}},
            "required": ["taskId"],
            "additionalProperties": false
        }),
    }
}

/// The `taskId` argument; a number is accepted too (`1` means `"1"`).
fn task_id(args: &Args) -> Result<String, ArgError> {
    match args.as_map().get("taskId") {
        Some(Value::Number(n)) => Ok(n.to_string()),
        _ => args.string("taskId").map(|id| id.trim().to_owned()),
    }
}

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

/// The shape of the tools that change one task: the conversation of the turn, the
/// `taskId` argument, then `edit` on the list (nothing is written when it refuses).
async fn edit_task(
    store: &dyn TaskStore,
    args: &Args,
    context: &ToolContext,
    edit: impl FnOnce(&mut TaskList, &str) -> Result<String, TaskError> + Send + 'static,
) -> ToolOutcome {
    let conversation = match turn_conversation(context) {
        Ok(id) => id,
        Err(outcome) => return outcome,
    };
    match task_id(args) {
        Ok(id) => edit_list(store, conversation, Box::new(move |list| edit(list, &id))).await,
        Err(error) => ToolOutcome::error(error.to_string()),
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
impl Tool for ListTasks {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: Self::NAME.into(),
            description: "List this conversation's task list — the plan — as JSON \
                {\"tasks\":[…]}. Each task has id, title, description, status (pending, \
                in_progress, done, blocked), done, dependsOn (ids that must be done first), \
                notes, toolHistory (the tool calls recorded while it was in progress) and \
                files (the files those calls wrote). The current plan is also shown in the \
                system prompt under '# Task List'."
                .into(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        }
    }

    async fn call(&self, _args: &Args, context: &ToolContext) -> ToolOutcome {
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
impl Tool for AddTask {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: Self::NAME.into(),
            description: "Add a task to this conversation's task list. The task list is the \
                plan: for work that takes several steps, add one task per step first, then \
                work through them with StartTask and CompleteTask. Returns the new task (ids \
                are \"1\", \"2\", …). dependsOn names tasks that must be done before this one \
                can start; they must exist and must not form a cycle."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string", "description": "Short title of the step, e.g. \"Load the CSV data\"."},
                    "description": {"type": "string", "description": "Optional details: what to do and what done looks like."},
                    "dependsOn": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Optional ids of existing tasks that must be done before this one starts."
                    }
                },
                "required": ["title"],
                "additionalProperties": false
            }),
        }
    }

    async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome {
        let conversation = match turn_conversation(context) {
            Ok(id) => id,
            Err(outcome) => return outcome,
        };
        let parsed = args.string("title").and_then(|title| {
            let description = args.opt_string("description")?.unwrap_or_default();
            let depends_on = args.opt_strings("dependsOn")?;
            Ok((title.to_owned(), description.to_owned(), depends_on))
        });
        let (title, description, depends_on) = match parsed {
            Ok(parsed) => parsed,
            Err(error) => return ToolOutcome::error(error.to_string()),
        };
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
impl Tool for StartTask {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn schema(&self) -> ToolSchema {
        task_id_schema(
            Self::NAME,
            "Mark a task in progress. Call it before working on a task: while the task is in \
             progress, every tool call you make in this conversation (except the task tools) \
             is recorded on it automatically, with the files the call wrote. Refused while \
             any of its dependencies is not done (the error names them). Returns \
             {\"ok\":true,\"task\":…}.",
        )
    }

    async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome {
        edit_task(self.store.as_ref(), args, context, |list, id| {
            Ok(ok_task_result(&list.start(id)?))
        })
        .await
    }
}

#[async_trait]
impl Tool for CompleteTask {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn schema(&self) -> ToolSchema {
        let mut schema = task_id_schema(
            Self::NAME,
            "Mark a task done when its work is finished, optionally with notes on the outcome \
             (what was found, produced or decided; shown in the plan). Returns \
             {\"ok\":true,\"task\":…}, or {\"ok\":false,\"error\":\"Task not found\"}.",
        );
        schema.parameters["properties"]["notes"] = json!({
            "type": "string",
            "description": "Optional short notes on the outcome, e.g. \"Loaded 1000 rows\"."
        });
        schema
    }

    async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome {
        // Outside a turn every task tool answers the no-context error first.
        if let Err(outcome) = turn_conversation(context) {
            return outcome;
        }
        let notes = match args.opt_string("notes") {
            Ok(notes) => notes.map(str::to_owned),
            Err(error) => return ToolOutcome::error(error.to_string()),
        };
        edit_task(self.store.as_ref(), args, context, move |list, id| {
            Ok(ok_task_result(&list.complete(id, notes)?))
        })
        .await
    }
}

#[async_trait]
impl Tool for UncompleteTask {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn schema(&self) -> ToolSchema {
        task_id_schema(
            Self::NAME,
            "Put a task back to pending (not done), e.g. when its result turned out to be \
             wrong and it must be redone. Returns {\"ok\":true,\"task\":…}.",
        )
    }

    async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome {
        edit_task(self.store.as_ref(), args, context, |list, id| {
            Ok(ok_task_result(&list.uncomplete(id)?))
        })
        .await
    }
}

#[async_trait]
impl Tool for DeleteTask {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        Self::TRAITS
    }

    fn schema(&self) -> ToolSchema {
        task_id_schema(
            Self::NAME,
            "Remove a task from the task list. Refused while other tasks depend on it (the \
             error names them; delete those first). Returns {\"ok\":true}.",
        )
    }

    async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome {
        edit_task(self.store.as_ref(), args, context, |list, id| {
            list.delete(id)?;
            Ok(ok_result())
        })
        .await
    }
}
