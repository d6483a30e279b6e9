//! Task lists on the writer's connection: an update in one transaction, under a
//! transaction-scoped advisory lock on the conversation (which serializes updaters
//! across processes) and with the list's `version` checked and increased (see
//! `task_store.rs`).

use std::sync::atomic::{AtomicBool, Ordering};

use smallebot_core::ids::ConversationId;
use smallebot_core::tasks::{TaskEdit, TaskList, TaskStoreError, TaskUpdate};
use sqlx::{Connection as _, PgConnection};

use super::link::Link;
use crate::fetch::{Stored, read_tasks, task_failed};
use crate::tx::{now, unreachable};

/// Maps a statement's error, noting when it says the server is out of reach.
fn failed<'a>(
    lost: &'a AtomicBool,
    action: &'static str,
) -> impl FnOnce(sqlx::Error) -> TaskStoreError + 'a {
    move |err| {
        if unreachable(&err) {
            lost.store(true, Ordering::Relaxed);
        }
        task_failed(action)(err)
    }
}

/// Edits a conversation's task list (see `TaskStore::update`).
pub(super) async fn update(
    link: &mut Link,
    conversation_id: ConversationId,
    edit: TaskEdit,
) -> Result<TaskUpdate, TaskStoreError> {
    let lost = AtomicBool::new(false);
    let answer = match link.get().await {
        Ok(conn) => update_on(conn, conversation_id, edit, &lost).await,
        Err(err) => Err(task_failed("update")(err)),
    };
    link.settle(&answer, lost.load(Ordering::Relaxed)).await;
    answer
}

/// Deletes a conversation's task list.
pub(super) async fn delete(
    link: &mut Link,
    conversation_id: ConversationId,
) -> Result<(), TaskStoreError> {
    let lost = AtomicBool::new(false);
    let answer = match link.get().await {
        Ok(conn) => sqlx::query("DELETE FROM task_lists WHERE conversation_id = $1")
            .bind(conversation_id.to_string())
            .execute(&mut *conn)
            .await
            .map(|_| ())
            .map_err(failed(&lost, "delete")),
        Err(err) => Err(task_failed("delete")(err)),
    };
    link.settle(&answer, lost.load(Ordering::Relaxed)).await;
    answer
}

async fn update_on(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    edit: TaskEdit,
    lost: &AtomicBool,
) -> Result<TaskUpdate, TaskStoreError> {
    let id = conversation_id.to_string();
    let mut tx = conn.begin().await.map_err(failed(lost, "update"))?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('task_lists:' || $1, 0))")
        .bind(&id)
        .execute(&mut *tx)
        .await
        .map_err(failed(lost, "lock"))?;
    let mut recovered = None;
    let stored = read_tasks(&mut tx, conversation_id)
        .await
        .map_err(failed(lost, "read"))?;
    let (before, version) = match stored {
        Stored::Missing => (TaskList::default(), None),
        Stored::List(list, version) => (list, Some(version)),
        Stored::Corrupt(body, reason, version) => {
            let recovery = keep_aside(&mut tx, conversation_id, &body, reason, lost).await?;
            recovered = Some(recovery);
            (TaskList::default(), Some(version))
        }
    };
    let mut list = before.clone();
    let output = edit(&mut list)?;
    if list == before && recovered.is_none() {
        // Nothing to write: the lock is given back now.
        tx.rollback().await.map_err(failed(lost, "update"))?;
        return Ok(TaskUpdate {
            output,
            list,
            written: false,
            recovered,
        });
    }
    write_list(&mut tx, conversation_id, &list, version, lost).await?;
    tx.commit().await.map_err(failed(lost, "commit"))?;
    Ok(TaskUpdate {
        output,
        list,
        written: true,
        recovered,
    })
}

/// A stored list that does not decode, moved to `task_lists_corrupt` (the conversation
/// starts a new one); what the update reports about it.
async fn keep_aside(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    body: &serde_json::Value,
    reason: String,
    lost: &AtomicBool,
) -> Result<String, TaskStoreError> {
    sqlx::query(
        "INSERT INTO task_lists_corrupt (conversation_id, body, reason, moved_at) \
         VALUES ($1, $2, $3, $4)",
    )
    .bind(conversation_id.to_string())
    .bind(body)
    .bind(&reason)
    .bind(now())
    .execute(&mut *conn)
    .await
    .map_err(failed(lost, "keep aside"))?;
    tracing::warn!(%conversation_id, %reason,
        "corrupt task list moved to task_lists_corrupt; the conversation starts a new one");
    Ok(TaskStoreError::CorruptRecord {
        conversation: conversation_id,
        kept_aside: true,
        reason,
    }
    .to_string())
}

/// Writes `list` over the stored one at `version` (`None`: there was none).
async fn write_list(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    list: &TaskList,
    version: Option<i64>,
    lost: &AtomicBool,
) -> Result<(), TaskStoreError> {
    let id = conversation_id.to_string();
    let body = serde_json::to_value(list).map_err(|e| TaskStoreError::Storage {
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
            .execute(&mut *conn)
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
            .execute(&mut *conn)
            .await
        }
    }
    .map_err(failed(lost, "write"))?;
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
    Ok(())
}
