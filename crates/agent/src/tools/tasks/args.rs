//! The task tools' arguments: one serde struct per shape, from which the schema the
//! model sees is derived.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::tools::typed;

/// `StartTask`, `UncompleteTask` and `DeleteTask`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskIdArgs {
    /// The task's id as returned by AddTask or ListTasks, e.g. "1".
    #[serde(deserialize_with = "typed::lenient_string")]
    #[schemars(with = "String")]
    pub task_id: String,
}

/// `AddTask`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddTaskArgs {
    /// Short title of the step, e.g. "Load the CSV data".
    pub title: String,
    /// Optional details: what to do and what done looks like.
    #[serde(default)]
    pub description: Option<String>,
    /// Optional ids of existing tasks that must be done before this one starts.
    #[serde(default, deserialize_with = "typed::lenient_strings")]
    #[schemars(with = "Option<Vec<String>>")]
    pub depends_on: Vec<String>,
}

/// `CompleteTask`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompleteTaskArgs {
    /// The task's id as returned by AddTask or ListTasks, e.g. "1".
    #[serde(deserialize_with = "typed::lenient_string")]
    #[schemars(with = "String")]
    pub task_id: String,
    /// Optional short notes on the outcome, e.g. "Loaded 1000 rows".
    #[serde(default)]
    pub notes: Option<String>,
}
