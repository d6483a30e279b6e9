//! [`PgTaskStore`]: task lists as rows of `task_lists`, one per conversation, so every
//! server process on the database sees the same plan.
//!
//! An update runs in one transaction: a transaction-scoped advisory lock on the
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
use sqlx::PgConnection;

use crate::store::PgStore;
use crate::tx::now;

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

fn failed(action: &'static str) -> impl FnOnce(sqlx::Error) -> TaskStoreError {
    move |err| TaskStoreError::Storage {
        action,
        message: err.to_string(),
    }
}

/// A stored list: parsed, or not a task list (with why).
enum Stored {
    Missing,
    List(TaskList, i64),
    Corrupt(serde_json::Value, String, i64),
}

async fn read(conn: &mut PgConnection, id: ConversationId) -> Result<Stored, TaskStoreError> {
    let row: Option<(serde_json::Value, i64)> =
        sqlx::query_as("SELECT body, version FROM task_lists WHERE conversation_id = $1")
            .bind(id.to_string())
            .fetch_optional(&mut *conn)
            .await
            .map_err(failed("read"))?;
    Ok(match row {
        None => Stored::Missing,
        Some((body, version)) => match serde_json::from_value::<TaskList>(body.clone()) {
            Ok(list) => Stored::List(list, version),
            Err(err) => Stored::Corrupt(body, err.to_string(), version),
        },
    })
}

#[async_trait]
impl TaskStore for PgTaskStore {
    async fn load(&self, conversation_id: ConversationId) -> Result<TaskList, TaskStoreError> {
        let mut conn = self.store.pool().acquire().await.map_err(failed("read"))?;
        match read(&mut conn, conversation_id).await? {
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
        let id = conversation_id.to_string();
        let mut tx = self.store.pool().begin().await.map_err(failed("update"))?;
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('task_lists:' || $1, 0))")
            .bind(&id)
            .execute(&mut *tx)
            .await
            .map_err(failed("lock"))?;
        let mut recovered = None;
        let (before, version) = match read(&mut tx, conversation_id).await? {
            Stored::Missing => (TaskList::default(), None),
            Stored::List(list, version) => (list, Some(version)),
            Stored::Corrupt(body, reason, version) => {
                sqlx::query(
                    "INSERT INTO task_lists_corrupt (conversation_id, body, reason, moved_at) \
                     VALUES ($1, $2, $3, $4)",
                )
                .bind(&id)
                .bind(&body)
                .bind(&reason)
                .bind(now())
                .execute(&mut *tx)
                .await
                .map_err(failed("keep aside"))?;
                tracing::warn!(%conversation_id, %reason,
                    "corrupt task list moved to task_lists_corrupt; the conversation starts a new one");
                recovered = Some(
                    TaskStoreError::CorruptRecord {
                        conversation: conversation_id,
                        kept_aside: true,
                        reason,
                    }
                    .to_string(),
                );
                (TaskList::default(), Some(version))
            }
        };
        let mut list = before.clone();
        let output = edit(&mut list)?;
        if list == before && recovered.is_none() {
            return Ok(TaskUpdate {
                output,
                list,
                written: false,
                recovered,
            });
        }
        let body = serde_json::to_value(&list).map_err(|e| TaskStoreError::Storage {
            action: "encode",
            message: e.to_string(),
        })?;
        let written = match version {
            None => {
                sqlx::query(
                    "INSERT INTO task_lists (conversation_id, body, version, updated_at) \
                 VALUES ($1, $2, 1, $3) ON CONFLICT (conversation_id) DO NOTHING",
                )
                .bind(&id)
                .bind(&body)
                .bind(now())
                .execute(&mut *tx)
                .await
            }
            Some(version) => {
                sqlx::query(
                    "UPDATE task_lists SET body = $2, version = version + 1, updated_at = $3 \
                 WHERE conversation_id = $1 AND version = $4",
                )
                .bind(&id)
                .bind(&body)
                .bind(now())
                .bind(version)
                .execute(&mut *tx)
                .await
            }
        }
        .map_err(failed("write"))?;
        if written.rows_affected() != 1 {
            return Err(TaskStoreError::Storage {
                action: "write",
                message: format!(
                    "the task list of conversation {conversation_id} changed while this \
                     change was made (by a process not taking the update lock); nothing was \
                     written, try again"
                ),
            });
        }
        tx.commit().await.map_err(failed("commit"))?;
        Ok(TaskUpdate {
            output,
            list,
            written: true,
            recovered,
        })
    }

    async fn delete(&self, conversation_id: ConversationId) -> Result<(), TaskStoreError> {
        sqlx::query("DELETE FROM task_lists WHERE conversation_id = $1")
            .bind(conversation_id.to_string())
            .execute(self.store.pool())
            .await
            .map_err(failed("delete"))?;
        Ok(())
    }
}
