//! The exact result strings of the task tools (the original SmallEBot app's strings,
//! kept for compatibility). The tools themselves, and their names, live in the agent
//! crate.

use serde::Serialize;

use super::model::{Task, TaskList};
use super::ops::TaskError;

/// Returned by every task tool when the call has no conversation to attach to.
pub const NO_CONVERSATION_CONTEXT: &str =
    "Error: Task list is not available (no conversation context).";

/// Returned by every task tool when the conversation's task file cannot be parsed.
pub const CORRUPT_TASK_FILE: &str = "Error: Task file is corrupt or invalid.";

/// `ListTasks` result: `{"tasks":[…]}`.
#[must_use]
pub fn list_result(list: &TaskList) -> String {
    to_json(list)
}

/// `AddTask` result: the new task object.
#[must_use]
pub fn added_result(task: &Task) -> String {
    to_json(task)
}

/// Result of a successful start, complete or uncomplete: `{"ok":true,"task":…}`.
#[must_use]
pub fn ok_task_result(task: &Task) -> String {
    #[derive(Serialize)]
    struct OkTask<'a> {
        ok: bool,
        task: &'a Task,
    }
    to_json(&OkTask { ok: true, task })
}

/// Result of a successful delete: `{"ok":true}`.
#[must_use]
pub fn ok_result() -> String {
    r#"{"ok":true}"#.to_owned()
}

/// Result of a refused operation: `{"ok":false,"error":"<message>"}`.
#[must_use]
pub fn error_result(error: &TaskError) -> String {
    failure(&error.to_string())
}

/// `{"ok":false,"error":"<message>"}` with the keys in that order.
fn failure(message: &str) -> String {
    #[derive(Serialize)]
    struct Failure<'a> {
        ok: bool,
        error: &'a str,
    }
    serde_json::to_string(&Failure {
        ok: false,
        error: message,
    })
    .unwrap_or_else(|_| r#"{"ok":false,"error":"cannot serialize the error"}"#.to_owned())
}

/// Serializes a value that cannot fail to serialize (string keys only); should it fail
/// anyway, the failure is reported as a tool error instead of panicking.
fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value)
        .unwrap_or_else(|e| failure(&format!("cannot serialize the task list: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Task {
        Task::new("1", "Load", "csv")
    }

    #[test]
    fn result_strings_match_seed_003() {
        const TASK: &str = r#"{"id":"1","title":"Load","description":"csv","done":false,"status":"pending","dependsOn":[],"notes":"","toolHistory":[],"files":[]}"#;
        let cases = [
            (
                "list",
                list_result(&TaskList {
                    tasks: vec![sample()],
                }),
                format!(r#"{{"tasks":[{TASK}]}}"#),
            ),
            (
                "empty list",
                list_result(&TaskList::default()),
                r#"{"tasks":[]}"#.to_owned(),
            ),
            ("added", added_result(&sample()), TASK.to_owned()),
            (
                "ok task",
                ok_task_result(&sample()),
                format!(r#"{{"ok":true,"task":{TASK}}}"#),
            ),
            ("ok", ok_result(), r#"{"ok":true}"#.to_owned()),
            (
                "not found",
                error_result(&TaskError::NotFound),
                r#"{"ok":false,"error":"Task not found"}"#.to_owned(),
            ),
        ];
        for (name, actual, expected) in cases {
            assert_eq!(actual, expected, "{name}");
        }
    }

    #[test]
    fn constants_are_the_original_strings() {
        assert_eq!(
            NO_CONVERSATION_CONTEXT,
            "Error: Task list is not available (no conversation context)."
        );
        assert_eq!(CORRUPT_TASK_FILE, "Error: Task file is corrupt or invalid.");
    }
}
