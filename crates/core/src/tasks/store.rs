//! The task store port: where a conversation's [`TaskList`] is kept (docs/design.md §6).
//!
//! The infrastructure crate implements it on `.agents/tasks/<conversation>.json`.
//! Contract every implementation keeps:
//!
//! - A conversation without a file has an empty list.
//! - [`TaskStore::update`] runs load → edit → write as one step per conversation
//!   (concurrent updates of one conversation never lose each other's changes), writes
//!   atomically, writes nothing when the edit is refused, and writes nothing when the
//!   edit left the list unchanged.
//! - A corrupt file is never overwritten. [`TaskStore::load`] reports it and leaves it
//!   in place (reading has no side effects: the system prompt is assembled before any
//!   tool runs, and the task tools must still see the corruption to report it).
//!   [`TaskStore::update`] moves it aside to `<name>.corrupt-<UTC time>`, applies the
//!   edit to a new, empty list and says so in [`TaskUpdate::recovered`].

use std::path::PathBuf;

use async_trait::async_trait;

use super::model::TaskList;
use super::ops::TaskError;
use crate::ids::ConversationId;

/// An edit of a task list: changes it in place and returns the text a tool answers
/// with, or refuses with a [`TaskError`] (and then must leave the list unchanged).
pub type TaskEdit = Box<dyn FnOnce(&mut TaskList) -> Result<String, TaskError> + Send>;

/// What [`TaskStore::update`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskUpdate {
    /// The text the edit returned.
    pub output: String,
    /// The list after the edit.
    pub list: TaskList,
    /// Whether the file was written (false when the edit changed nothing).
    pub written: bool,
    /// Set when the file was corrupt: it was moved aside and the edit applied to a new
    /// list. Says what happened, with both paths.
    pub recovered: Option<String>,
}

/// Why the task store could not serve a request.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The file is not a valid task list. It was not overwritten.
    #[error(
        "task file {path} is corrupt or invalid ({reason}); {}",
        match preserved_as {
            Some(kept) => format!(
                "it was kept as {} and the next change starts a new task list",
                kept.display()
            ),
            None => "it was left untouched; the next change moves it aside".to_owned(),
        }
    )]
    Corrupt {
        /// The task file.
        path: PathBuf,
        /// Where the corrupt bytes are now: `None` when they were left in place (load).
        preserved_as: Option<PathBuf>,
        /// What the parser said.
        reason: String,
    },
    /// Reading, writing, renaming or deleting a file failed.
    #[error("cannot {action} {path}: {source}; check that the directory exists and is writable")]
    Io {
        /// What was being done, e.g. "write".
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The edit was refused; nothing was written.
    #[error(transparent)]
    Rejected(#[from] TaskError),
    /// A task list stored in a database is not a valid task list. It was not
    /// overwritten: left in place (load), or kept aside (update).
    #[error(
        "the stored task list of conversation {conversation} is corrupt or invalid ({reason}); {}",
        if *kept_aside {
            "it was kept in task_lists_corrupt and the next change starts a new task list"
        } else {
            "it was left untouched; the next change moves it aside"
        }
    )]
    CorruptRecord {
        /// The conversation whose list it is.
        conversation: ConversationId,
        /// Whether the bad list was moved aside (update) or left in place (load).
        kept_aside: bool,
        /// What the parser said.
        reason: String,
    },
    /// The database holding the task lists failed.
    #[error("cannot {action} the task list: {message}; check that the database is reachable")]
    Storage {
        /// What was being done, e.g. "read".
        action: &'static str,
        /// What the database said.
        message: String,
    },
}

/// Where conversations' task lists are kept.
#[async_trait]
pub trait TaskStore: Send + Sync {
    /// The conversation's task list; empty when it has none.
    ///
    /// # Errors
    /// [`TaskStoreError::Corrupt`] (file left in place) or [`TaskStoreError::Io`].
    async fn load(&self, conversation_id: ConversationId) -> Result<TaskList, TaskStoreError>;

    /// Loads the list, applies `edit` and writes the result atomically, serialized with
    /// every other update of the conversation. Nothing is written when `edit` refuses
    /// or changes nothing.
    ///
    /// # Errors
    /// [`TaskStoreError::Rejected`] with the edit's error; [`TaskStoreError::Io`].
    async fn update(
        &self,
        conversation_id: ConversationId,
        edit: TaskEdit,
    ) -> Result<TaskUpdate, TaskStoreError>;

    /// Deletes the conversation's task list (no error when it has none). Files kept
    /// as `.corrupt-*` stay.
    ///
    /// # Errors
    /// [`TaskStoreError::Io`].
    async fn delete(&self, conversation_id: ConversationId) -> Result<(), TaskStoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrupt_errors_say_where_the_bytes_are() {
        let left = TaskStoreError::Corrupt {
            path: "/t/a.json".into(),
            preserved_as: None,
            reason: "expected value at line 1 column 1".into(),
        };
        assert_eq!(
            left.to_string(),
            "task file /t/a.json is corrupt or invalid (expected value at line 1 column 1); \
             it was left untouched; the next change moves it aside"
        );
        let kept = TaskStoreError::Corrupt {
            path: "/t/a.json".into(),
            preserved_as: Some("/t/a.json.corrupt-20261122T031500Z".into()),
            reason: "x".into(),
        };
        assert!(
            kept.to_string()
                .ends_with("kept as /t/a.json.corrupt-20261122T031500Z and the next change starts a new task list"),
            "{kept}"
        );
        let rejected = TaskStoreError::from(TaskError::NotFound);
        assert_eq!(rejected.to_string(), "Task not found");
    }
}
