//! [`PgTaskStore`]: task lists as rows of `task_lists`, one per conversation, so every
//! server process on the database sees the same plan.
//!
//! An update is a job of the store's writer and runs in one transaction on its
//! connection (`write/tasks.rs`): a transaction-scoped advisory lock on the
//! conversation serializes updaters across processes (the edit is a one-shot closure,
//! so it cannot be retried after losing a race), the list is read, edited, and written
//! with its `version` checked and increased — the optimistic guard that refuses a write
//! over a list that changed since it was read, whoever changed it. Nothing is written
//! when the edit refuses or changes nothing.
//!
//! A stored list that does not parse is never overwritten: `load` reports it; `update`
//! moves it to `task_lists_corrupt` and applies the edit to a new list, saying so.

use async_trait::async_trait;
use smallebot_core::ids::ConversationId;
use smallebot_core::tasks::{TaskEdit, TaskList, TaskStore, TaskStoreError, TaskUpdate};

use smallebot_core::RepositoryError;

use crate::fetch::{Stored, read_tasks, task_failed as failed};
use crate::store::PgStore;
use crate::write::{Edit, EditTasks};

/// Task lists in the PostgreSQL database of a [`PgStore`].
#[derive(Debug, Clone)]
pub struct PgTaskStore {
    store: PgStore,
}

impl PgTaskStore {
    /// Task lists in `store`'s database.
    #[must_use]
    pub fn new(store: PgStore) -> Self {
        Self { store }
    }
}

#[async_trait]
impl TaskStore for PgTaskStore {
    async fn load(&self, conversation_id: ConversationId) -> Result<TaskList, TaskStoreError> {
        let mut conn = self.store.pool().acquire().await.map_err(failed("read"))?;
        match read_tasks(&mut conn, conversation_id)
            .await
            .map_err(failed("read"))?
        {
            Stored::Missing => Ok(TaskList::default()),
            Stored::List(list, _) => Ok(list),
            Stored::Corrupt(_, reason, _) => Err(TaskStoreError::CorruptRecord {
                conversation: conversation_id,
                kept_aside: false,
                reason,
            }),
        }
    }

    async fn update(
        &self,
        conversation_id: ConversationId,
        edit: TaskEdit,
    ) -> Result<TaskUpdate, TaskStoreError> {
        let edit = EditTasks(edit);
        self.store
            .edit("updating a task list", |reply| {
                Edit::UpdateTasks(conversation_id, edit, reply)
            })
            .await
            .map_err(closed("update"))?
    }

    async fn delete(&self, conversation_id: ConversationId) -> Result<(), TaskStoreError> {
        self.store
            .edit("deleting a task list", |reply| {
                Edit::DeleteTasks(conversation_id, reply)
            })
            .await
            .map_err(closed("delete"))?
    }
}

/// The writer was closed before it answered.
fn closed(action: &'static str) -> impl FnOnce(RepositoryError) -> TaskStoreError {
    move |err| TaskStoreError::Storage {
        action,
        message: err.to_string(),
    }
}
