//! The plan (a conversation's task list) as structured data: the
//! `TaskListChanged` event and the timeline carry a [`Plan`], and each client renders
//! it (the page's task drawer, the terminal's plan).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A conversation's tasks, in the order they were added.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Plan {
    /// The tasks.
    pub tasks: Vec<PlanTask>,
}

impl Plan {
    /// A plan of `tasks`.
    #[must_use]
    pub fn new(tasks: Vec<PlanTask>) -> Self {
        Self { tasks }
    }

    /// How many tasks are done, of how many.
    #[must_use]
    pub fn progress(&self) -> (usize, usize) {
        let done = self
            .tasks
            .iter()
            .filter(|t| t.status == TaskStatus::Done)
            .count();
        (done, self.tasks.len())
    }
}

/// One task of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct PlanTask {
    /// Its id (`"1"`, `"2"`, … for the tasks the model adds), unique in the plan.
    pub id: String,
    /// Its short title.
    pub title: String,
    /// A longer description; empty when none was given.
    #[serde(default)]
    pub description: String,
    /// Where it stands.
    pub status: TaskStatus,
    /// The ids of the tasks that must be done before it starts.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Notes written when it was completed; empty when none.
    #[serde(default)]
    pub notes: String,
    /// The tools called while it was in progress, each once with its number of calls,
    /// in order of first use.
    #[serde(default)]
    pub tools: Vec<ToolUse>,
    /// The files written while it was in progress, in first-seen order.
    #[serde(default)]
    pub files: Vec<String>,
}

/// A tool called while a task was in progress.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub struct ToolUse {
    /// The tool's name.
    pub name: String,
    /// How many times it was called.
    pub calls: u64,
}

/// Where a task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Not started yet.
    #[default]
    Pending,
    /// Being worked on.
    InProgress,
    /// Finished.
    Done,
    /// Cannot progress until something outside the plan changes.
    Blocked,
    /// A status this client does not know.
    #[serde(other)]
    #[schemars(skip)]
    Unknown,
}
