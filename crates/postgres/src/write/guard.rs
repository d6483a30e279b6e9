//! The guard of a rewrite: the state its decision was made on, checked again under the
//! conversation's row lock.

use smallebot_core::RepositoryError;
use smallebot_core::entities::RewriteGuard;
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use crate::fetch::{ensure_no_running_turn, lock_conversation};

/// Takes the conversation's row lock and refuses a rewrite decided on a state that no
/// longer holds: the boundary moved, or a turn of the conversation runs.
pub(super) async fn check_guard(
    conn: &mut PgConnection,
    guard: &RewriteGuard,
    action: &str,
) -> RepoResult<()> {
    let conversation = lock_conversation(conn, guard.conversation_id).await?;
    if conversation.history_boundary() != guard.boundary {
        return Err(changed(action));
    }
    ensure_no_running_turn(conn, guard.conversation_id).await
}

/// The refusal of a rewrite whose guard no longer holds.
pub(super) fn changed(action: &str) -> RepositoryError {
    RepositoryError::Conflict(format!(
        "the conversation changed while {action} (another writer compressed, edited or undid \
         it); nothing was changed, try again"
    ))
}
