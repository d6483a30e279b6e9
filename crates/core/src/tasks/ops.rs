//! Operations on a [`TaskList`]: add, start, complete, uncomplete, block, delete.
//!
//! Every operation checks first and changes nothing when it returns an error.
//!
//! Several tasks may be in progress at once (starting a task does not stop another);
//! tool history goes to the most recently started one (see [`TaskList::active_task`]).

use thiserror::Error;

use super::model::{Task, TaskList, TaskStatus};

/// Why a task operation was refused. The messages are returned to the model verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TaskError {
    /// No task has the given id (the seed's exact message).
    #[error("Task not found")]
    NotFound,
    /// The title was empty or only whitespace.
    #[error("Task title must not be empty")]
    EmptyTitle,
    /// Dependencies that name no existing task.
    #[error("Unknown dependency task id(s): {}; call ListTasks to see the existing ids", .0.join(", "))]
    UnknownDependencies(Vec<String>),
    /// Dependencies that form a cycle, listed along the cycle (first id repeated last).
    #[error("Dependencies form a cycle: {}; remove one of these dependencies", .0.join(" -> "))]
    Cycle(Vec<String>),
    /// The task cannot start because some of its dependencies are not done.
    #[error("Task {task} cannot start: dependencies not done: {}; complete them first", .pending.join(", "))]
    DependenciesNotDone {
        /// The task that was to start.
        task: String,
        /// Its dependencies that are not done, in `dependsOn` order.
        pending: Vec<String>,
    },
    /// The task cannot be deleted because other tasks depend on it.
    #[error("Task {task} cannot be deleted: task(s) {} depend on it; delete them first", .dependents.join(", "))]
    DependedOnBy {
        /// The task that was to be deleted.
        task: String,
        /// The tasks that list it in `dependsOn`, in list order.
        dependents: Vec<String>,
    },
}

impl TaskList {
    /// Adds a pending task with the next integer id and returns a copy of it.
    ///
    /// The title is trimmed; dependency ids are trimmed, de-duplicated, blanks dropped.
    ///
    /// # Errors
    /// [`TaskError::EmptyTitle`], [`TaskError::UnknownDependencies`], or
    /// [`TaskError::Cycle`] when a dependency already sits on a cycle.
    pub fn add(
        &mut self,
        title: &str,
        description: &str,
        depends_on: &[String],
    ) -> Result<Task, TaskError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(TaskError::EmptyTitle);
        }
        let mut deps: Vec<String> = Vec::new();
        for dep in depends_on.iter().map(|d| d.trim().to_owned()) {
            if !dep.is_empty() && !deps.contains(&dep) {
                deps.push(dep);
            }
        }
        let unknown: Vec<String> = deps
            .iter()
            .filter(|d| self.find(d).is_none())
            .cloned()
            .collect();
        if !unknown.is_empty() {
            return Err(TaskError::UnknownDependencies(unknown));
        }
        if let Some(cycle) = self.find_cycle_from(&deps) {
            return Err(TaskError::Cycle(cycle));
        }
        let mut task = Task::new(self.next_id(), title, description.trim());
        task.depends_on = deps;
        self.tasks.push(task.clone());
        Ok(task)
    }

    /// Marks a task in progress and returns a copy of it.
    ///
    /// # Errors
    /// [`TaskError::NotFound`]; [`TaskError::UnknownDependencies`] or
    /// [`TaskError::Cycle`] for a hand-edited file; [`TaskError::DependenciesNotDone`]
    /// naming the dependencies that are not done.
    pub fn start(&mut self, id: &str) -> Result<Task, TaskError> {
        let index = self.position(id).ok_or(TaskError::NotFound)?;
        let task = &self.tasks[index];
        let unknown: Vec<String> = task
            .depends_on
            .iter()
            .filter(|d| self.find(d).is_none())
            .cloned()
            .collect();
        if !unknown.is_empty() {
            return Err(TaskError::UnknownDependencies(unknown));
        }
        if let Some(cycle) = self.find_cycle_from(std::slice::from_ref(&task.id)) {
            return Err(TaskError::Cycle(cycle));
        }
        let pending: Vec<String> = task
            .depends_on
            .iter()
            .filter(|d| self.find(d).is_some_and(|t| !t.is_done()))
            .cloned()
            .collect();
        if !pending.is_empty() {
            return Err(TaskError::DependenciesNotDone {
                task: task.id.clone(),
                pending,
            });
        }
        let order = self
            .tasks
            .iter()
            .map(|t| t.start_order)
            .max()
            .unwrap_or(0)
            .saturating_add(1);
        let task = &mut self.tasks[index];
        task.set_status(TaskStatus::InProgress);
        task.start_order = order;
        Ok(task.clone())
    }

    /// Marks a task done, replacing its notes when `notes` is given and not blank, and
    /// returns a copy of it. Dependencies are not checked (the seed allowed completing
    /// any task).
    ///
    /// # Errors
    /// [`TaskError::NotFound`].
    pub fn complete(&mut self, id: &str, notes: Option<String>) -> Result<Task, TaskError> {
        let task = self.find_mut(id)?;
        task.set_status(TaskStatus::Done);
        if let Some(notes) = notes.map(|n| n.trim().to_owned()).filter(|n| !n.is_empty()) {
            task.notes = notes;
        }
        Ok(task.clone())
    }

    /// Puts a task back to pending and returns a copy of it.
    ///
    /// # Errors
    /// [`TaskError::NotFound`].
    pub fn uncomplete(&mut self, id: &str) -> Result<Task, TaskError> {
        let task = self.find_mut(id)?;
        task.set_status(TaskStatus::Pending);
        Ok(task.clone())
    }

    /// Marks a task blocked, replacing its notes when a non-blank reason is given, and
    /// returns a copy of it.
    ///
    /// # Errors
    /// [`TaskError::NotFound`].
    pub fn block(&mut self, id: &str, reason: Option<String>) -> Result<Task, TaskError> {
        let task = self.find_mut(id)?;
        task.set_status(TaskStatus::Blocked);
        if let Some(reason) = reason
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
        {
            task.notes = reason;
        }
        Ok(task.clone())
    }

    /// Removes a task and returns it.
    ///
    /// # Errors
    /// [`TaskError::NotFound`]; [`TaskError::DependedOnBy`] naming the tasks that depend
    /// on it.
    pub fn delete(&mut self, id: &str) -> Result<Task, TaskError> {
        let index = self.position(id).ok_or(TaskError::NotFound)?;
        let dependents: Vec<String> = self
            .tasks
            .iter()
            .filter(|t| t.id != id && t.depends_on.iter().any(|d| d == id))
            .map(|t| t.id.clone())
            .collect();
        if !dependents.is_empty() {
            return Err(TaskError::DependedOnBy {
                task: id.to_owned(),
                dependents,
            });
        }
        Ok(self.tasks.remove(index))
    }

    /// The in-progress task that receives tool history: the one started most recently
    /// (highest `start_order`; on a tie, the later one in the list).
    #[must_use]
    pub fn active_task(&self) -> Option<&Task> {
        self.active_index().map(|i| &self.tasks[i])
    }

    /// Index of [`TaskList::active_task`].
    #[must_use]
    pub fn active_index(&self) -> Option<usize> {
        self.tasks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.status == TaskStatus::InProgress)
            .max_by_key(|(i, t)| (t.start_order, *i))
            .map(|(i, _)| i)
    }

    fn find_mut(&mut self, id: &str) -> Result<&mut Task, TaskError> {
        self.tasks
            .iter_mut()
            .find(|t| t.id == id)
            .ok_or(TaskError::NotFound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::tasks::test_fixtures::{ids, list_of};

    use TaskStatus::{Blocked, Done, InProgress, Pending};

    #[test]
    fn add_assigns_ids_trims_and_keeps_dependencies() {
        let mut list = TaskList::default();
        let first = list.add("  Load CSV  ", " d ", &[]).unwrap();
        let second = list.add("Process", "", &ids(&["1", " 1 "])).unwrap();
        assert_eq!(
            (
                first.id.as_str(),
                first.title.as_str(),
                first.description.as_str()
            ),
            ("1", "Load CSV", "d")
        );
        assert_eq!(second.id, "2");
        assert_eq!(second.depends_on, ["1"]);
        assert_eq!((second.status, second.done), (Pending, false));
        assert_eq!(list.tasks.len(), 2);
    }

    #[test]
    fn refused_operations_change_nothing_and_say_why() {
        type Op = fn(&mut TaskList) -> Result<Task, TaskError>;
        let cases: [(&str, Op, &str); 9] = [
            (
                "empty title",
                |l| l.add("  ", "", &[]),
                "Task title must not be empty",
            ),
            (
                "unknown dependency",
                |l| l.add("x", "", &ids(&["9", "2", "8"])),
                "Unknown dependency task id(s): 9, 8; call ListTasks to see the existing ids",
            ),
            ("start unknown", |l| l.start("42"), "Task not found"),
            (
                "start before dependencies are done",
                |l| l.start("3"),
                "Task 3 cannot start: dependencies not done: 2; complete them first",
            ),
            (
                "complete unknown",
                |l| l.complete("42", None),
                "Task not found",
            ),
            (
                "uncomplete unknown",
                |l| l.uncomplete("42"),
                "Task not found",
            ),
            ("block unknown", |l| l.block("42", None), "Task not found"),
            ("delete unknown", |l| l.delete("42"), "Task not found"),
            (
                "delete a depended-on task",
                |l| l.delete("1"),
                "Task 1 cannot be deleted: task(s) 2, 3 depend on it; delete them first",
            ),
        ];
        for (name, op, message) in cases {
            let mut list = list_of(&[(&[], Done), (&["1"], InProgress), (&["1", "2"], Pending)]);
            let before = list.clone();
            let error = op(&mut list).unwrap_err();
            assert_eq!(error.to_string(), message, "{name}");
            assert_eq!(list, before, "{name} changed the list");
        }
    }

    #[test]
    fn add_and_start_refuse_dependencies_on_a_cycle() {
        let mut list = list_of(&[(&["2"], Done), (&["1"], Done), (&[], Done)]);
        let before = list.clone();
        let error = list.add("x", "", &ids(&["3", "1"])).unwrap_err();
        assert_eq!(error, TaskError::Cycle(ids(&["1", "2", "1"])));
        assert_eq!(
            error.to_string(),
            "Dependencies form a cycle: 1 -> 2 -> 1; remove one of these dependencies"
        );
        assert_eq!(
            list.start("2").unwrap_err(),
            TaskError::Cycle(ids(&["2", "1", "2"]))
        );
        assert_eq!(list, before);
        assert!(
            list.add("ok", "", &ids(&["3"])).is_ok(),
            "tasks off the cycle still work"
        );
    }

    #[test]
    fn start_refuses_a_dangling_dependency() {
        let mut list = list_of(&[(&["7"], Pending)]);
        assert_eq!(
            list.start("1").unwrap_err(),
            TaskError::UnknownDependencies(ids(&["7"]))
        );
    }

    #[test]
    fn status_transitions_keep_done_in_step() {
        let mut list = list_of(&[(&[], Pending), (&["1"], Pending)]);
        let started = list.start("1").unwrap();
        assert_eq!((started.status, started.done), (InProgress, false));
        let done = list
            .complete("1", Some(" Loaded 1000 rows ".into()))
            .unwrap();
        assert_eq!(
            (done.status, done.done, done.notes.as_str()),
            (Done, true, "Loaded 1000 rows")
        );
        let kept = list.complete("1", Some("  ".into())).unwrap();
        assert_eq!(
            kept.notes, "Loaded 1000 rows",
            "blank notes keep the old ones"
        );
        assert_eq!(
            list.start("2").unwrap().status,
            InProgress,
            "dependency done: may start"
        );
        let back = list.uncomplete("1").unwrap();
        assert_eq!((back.status, back.done), (Pending, false));
        let blocked = list.block("2", Some("waiting for data".into())).unwrap();
        assert_eq!(
            (blocked.status, blocked.done, blocked.notes.as_str()),
            (Blocked, false, "waiting for data")
        );
        for task in &list.tasks {
            assert_eq!(task.done, task.status == Done);
        }
    }

    #[test]
    fn delete_removes_a_task_nobody_depends_on() {
        let mut list = list_of(&[(&[], Done), (&["1"], Pending)]);
        assert_eq!(list.delete("2").unwrap().id, "2");
        assert_eq!(list.delete("1").unwrap().id, "1");
        assert!(list.tasks.is_empty());
    }

    #[test]
    fn the_most_recently_started_task_is_active() {
        let mut list = list_of(&[(&[], Pending), (&[], Pending), (&[], Pending)]);
        assert_eq!(list.active_task(), None);
        list.start("2").unwrap();
        list.start("1").unwrap();
        assert_eq!(list.active_task().map(|t| t.id.as_str()), Some("1"));
        list.complete("1", None).unwrap();
        assert_eq!(list.active_task().map(|t| t.id.as_str()), Some("2"));
        // Seed files carry no start order: the later in-progress task in the list wins.
        let seeded = list_of(&[(&[], InProgress), (&[], InProgress)]);
        assert_eq!(seeded.active_task().map(|t| t.id.as_str()), Some("2"));
    }
}
