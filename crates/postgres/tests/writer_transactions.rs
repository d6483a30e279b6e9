//! The writer runs a rarer write as a transaction on its own connection; one that ends
//! without committing (refused by its guard, an edit that refuses or changes nothing)
//! gives its locks back at once, not when the writer's next job comes: another process
//! waiting on the same conversation goes on while this one sits idle.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{RewriteGuard, TurnUndo};
use smallebot_core::ids::TurnId;
use smallebot_core::repository::{ConversationRepository, TurnRepository};
use smallebot_core::tasks::{TaskError, TaskStore};
use smallebot_postgres::{PgStore, PgTaskStore};
use smallebot_testkit::postgres::TestCluster;

/// Long enough for a write that waits on nothing.
const PROMPTLY: Duration = Duration::from_secs(10);

#[tokio::test]
async fn a_refused_rewrite_leaves_no_row_lock_behind() {
    let Some(cluster) = TestCluster::start("a_refused_rewrite_leaves_no_lock") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let one = PgStore::connect(&url).await.unwrap();
    let other = PgStore::connect(&url).await.unwrap();
    let conversation = one.create_conversation("me", "kept").await.unwrap();

    // Decided on a boundary that is not the conversation's: refused under its row lock.
    let stale = TurnUndo {
        guard: RewriteGuard {
            conversation_id: conversation.id,
            boundary: 7,
        },
        turn_id: TurnId::new(),
    };
    let refused = one.mark_turn_undone(&stale).await;
    assert!(
        matches!(refused, Err(RepositoryError::Conflict(_))),
        "{refused:?}"
    );

    // The first process now sits idle; the other one's write of that row goes through.
    let renamed = tokio::time::timeout(
        PROMPTLY,
        other.rename_conversation(conversation.id, "renamed"),
    )
    .await;
    assert!(
        matches!(renamed, Ok(Ok(()))),
        "the refused rewrite still held the conversation's row lock: {renamed:?}"
    );
    one.close().await;
    other.close().await;
}

#[tokio::test]
async fn a_task_edit_that_refuses_or_changes_nothing_leaves_no_lock_behind() {
    let Some(cluster) = TestCluster::start("a_task_edit_leaves_no_lock") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let one = PgStore::connect(&url).await.unwrap();
    let other = PgStore::connect(&url).await.unwrap();
    let conversation = one.create_conversation("me", "plan").await.unwrap();
    let (one_tasks, other_tasks) = (
        PgTaskStore::new(one.clone()),
        PgTaskStore::new(other.clone()),
    );

    let unchanged = one_tasks
        .update(
            conversation.id,
            Box::new(|_| Ok("nothing to do".to_owned())),
        )
        .await
        .unwrap();
    assert!(!unchanged.written);
    let after_unchanged = tokio::time::timeout(
        PROMPTLY,
        other_tasks.update(conversation.id, Box::new(|_| Ok("nothing".to_owned()))),
    )
    .await;
    assert!(
        matches!(after_unchanged, Ok(Ok(_))),
        "an edit that changed nothing still held the task list's lock: {after_unchanged:?}"
    );

    let refused = one_tasks
        .update(conversation.id, Box::new(|_| Err(TaskError::NotFound)))
        .await;
    assert!(refused.is_err(), "{refused:?}");
    let after_refused = tokio::time::timeout(
        PROMPTLY,
        other_tasks.update(conversation.id, Box::new(|_| Ok("nothing".to_owned()))),
    )
    .await;
    assert!(
        matches!(after_refused, Ok(Ok(_))),
        "a refused edit still held the task list's lock: {after_refused:?}"
    );
    one.close().await;
    other.close().await;
}
