//! The serde model of a conversation's task file (docs/design.md §6).
//!
//! The file is `{"tasks":[{"id","title","description","done","status","dependsOn",
//! "notes","toolHistory","files"}]}` with camelCase keys. The smaller seed format
//! `{"tasks":[{"id","title","description","done"}]}` reads fine: missing fields take
//! their defaults and a missing `status` is derived from `done`.
//!
//! `done` mirrors `status` (`done == (status == Done)`): it is set by
//! [`Task::set_status`], recomputed from `status` when a file is read with both present,
//! and always written from `status`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Not started yet.
    #[default]
    Pending,
    /// Being worked on; tool calls of the conversation are recorded on it.
    InProgress,
    /// Finished.
    Done,
    /// Cannot progress until something outside the plan changes.
    Blocked,
}

/// All tasks of one conversation, in display order.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TaskList {
    /// The tasks, in the order they were added.
    #[serde(default, deserialize_with = "null_as_default")]
    pub tasks: Vec<Task>,
}

/// One task of the plan.
///
/// Build new tasks with [`Task::new`]; change the status with [`Task::set_status`] so
/// that `done` stays in step.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Task {
    /// Identifier: `"1"`, `"2"`, … for new tasks; seed files may hold GUID strings.
    pub id: String,
    /// Short title shown in the plan.
    pub title: String,
    /// Longer description; empty when none was given.
    pub description: String,
    /// Mirror of `status == Done`, kept for readers of the seed format.
    pub done: bool,
    /// Where the task stands.
    pub status: TaskStatus,
    /// Ids of the tasks that must be done before this one starts.
    pub depends_on: Vec<String>,
    /// Notes written when the task was completed; empty when none.
    pub notes: String,
    /// Tool calls made while the task was in progress, oldest first.
    pub tool_history: Vec<ToolHistoryEntry>,
    /// Files generated while the task was in progress, first-seen order, no duplicates.
    pub files: Vec<String>,
    /// Start order among the tasks of the list: the in-progress task with the highest
    /// value receives tool history (`0` = never started; JSON `startOrder`, omitted when 0).
    pub start_order: u64,
}

/// One recorded tool call (result cut at 200 characters).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolHistoryEntry {
    /// Tool name, e.g. `ExecuteCommand`.
    #[serde(default, deserialize_with = "null_as_default")]
    pub tool: String,
    /// The call's arguments as sent by the model.
    #[serde(default)]
    pub args: Value,
    /// The call's result, cut at 200 characters plus `...[truncated]`.
    #[serde(default, deserialize_with = "null_as_default")]
    pub result: String,
    /// When the call finished, RFC 3339.
    #[serde(default, deserialize_with = "null_as_default")]
    pub timestamp: String,
}

impl Task {
    /// A pending task with no dependencies, notes, history or files.
    #[must_use]
    pub fn new(
        id: impl Into<String>,
        title: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            title: title.into(),
            description: description.into(),
            ..Self::default()
        }
    }

    /// Sets the status and keeps `done` in step with it.
    pub fn set_status(&mut self, status: TaskStatus) {
        self.status = status;
        self.done = status == TaskStatus::Done;
    }

    /// Whether the task is done.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.status == TaskStatus::Done
    }
}

impl TaskList {
    /// The task with this id, if any.
    #[must_use]
    pub fn find(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// Position of the task with this id, if any.
    #[must_use]
    pub fn position(&self, id: &str) -> Option<usize> {
        self.tasks.iter().position(|t| t.id == id)
    }

    /// The id a new task gets: 1 + the largest numeric id, or `"1"` when there is none.
    #[must_use]
    pub fn next_id(&self) -> String {
        let max = self
            .tasks
            .iter()
            .filter_map(|t| t.id.trim().parse::<u64>().ok())
            .max();
        max.map_or(1, |m| m.saturating_add(1)).to_string()
    }
}

/// The task as it is written to the file (`done` derived from `status`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TaskOut<'a> {
    id: &'a str,
    title: &'a str,
    description: &'a str,
    done: bool,
    status: TaskStatus,
    depends_on: &'a [String],
    notes: &'a str,
    tool_history: &'a [ToolHistoryEntry],
    files: &'a [String],
    #[serde(skip_serializing_if = "is_zero")]
    start_order: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Serialize for Task {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        TaskOut {
            id: &self.id,
            title: &self.title,
            description: &self.description,
            done: self.is_done(),
            status: self.status,
            depends_on: &self.depends_on,
            notes: &self.notes,
            tool_history: &self.tool_history,
            files: &self.files,
            start_order: self.start_order,
        }
        .serialize(serializer)
    }
}

/// The task as read from a file: every field optional, ids may be numbers.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskIn {
    #[serde(default, deserialize_with = "id_text")]
    id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    title: String,
    #[serde(default, deserialize_with = "null_as_default")]
    description: String,
    #[serde(default, deserialize_with = "null_as_default")]
    done: bool,
    #[serde(default)]
    status: Option<TaskStatus>,
    #[serde(default, deserialize_with = "id_list")]
    depends_on: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    notes: String,
    #[serde(default, deserialize_with = "null_as_default")]
    tool_history: Vec<ToolHistoryEntry>,
    #[serde(default, deserialize_with = "null_as_default")]
    files: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    start_order: u64,
}

impl<'de> Deserialize<'de> for Task {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = TaskIn::deserialize(deserializer)?;
        let status = raw.status.unwrap_or(if raw.done {
            TaskStatus::Done
        } else {
            TaskStatus::Pending
        });
        let mut task = Self {
            id: raw.id,
            title: raw.title,
            description: raw.description,
            done: raw.done,
            status,
            depends_on: raw.depends_on,
            notes: raw.notes,
            tool_history: raw.tool_history,
            files: raw.files,
            start_order: raw.start_order,
        };
        task.set_status(status);
        Ok(task)
    }
}

/// Reads `null` as the type's default.
fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// An id written as a string or as a number (hand-edited files).
#[derive(Deserialize)]
#[serde(untagged)]
enum IdIn {
    Text(String),
    Number(serde_json::Number),
}

impl IdIn {
    fn into_text(self) -> String {
        match self {
            Self::Text(text) => text,
            Self::Number(number) => number.to_string(),
        }
    }
}

fn id_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(Option::<IdIn>::deserialize(deserializer)?
        .map(IdIn::into_text)
        .unwrap_or_default())
}

fn id_list<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let ids = Option::<Vec<IdIn>>::deserialize(deserializer)?.unwrap_or_default();
    Ok(ids.into_iter().map(IdIn::into_text).collect())
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
