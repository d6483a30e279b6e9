//! Fixtures shared by the task-list unit tests.

use super::model::{Task, TaskList, TaskStatus};

/// Owned ids from string literals.
pub(crate) fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// Tasks "1".."n" with the given dependencies and statuses.
pub(crate) fn list_of(spec: &[(&[&str], TaskStatus)]) -> TaskList {
    let tasks = spec
        .iter()
        .enumerate()
        .map(|(i, (deps, status))| {
            let mut task = Task::new((i + 1).to_string(), format!("t{}", i + 1), "");
            task.depends_on = ids(deps);
            task.set_status(*status);
            task
        })
        .collect();
    TaskList { tasks }
}
