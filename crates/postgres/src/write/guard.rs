//! The guard of a rewrite: the state its decision was made on, checked again under the
//! conversation's row lock.

use smallebot_core::RepositoryError;
use smallebot_core::entities::RewriteGuard;
use smallebot_core::refusals::Rewrite;
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use smallebot_core::entities::Conversation;
use smallebot_core::ids::ConversationId;

use crate::fetch::ensure_no_running_turn;
use crate::rows;
use crate::tx::storage;
use smallebot_core::conversation_columns;

/// Locks the conversation's row until the transaction ends (every writer of a
/// conversation takes this lock first, so they queue instead of interleaving), moves
/// its version (whatever the transaction then writes of its rows, a copy of them kept
/// by any process is behind) and returns it.
pub(super) async fn lock_conversation(
    conn: &mut PgConnection,
    id: ConversationId,
) -> RepoResult<Conversation> {
    let row = sqlx::query(concat!(
        "UPDATE conversations SET version = version + 1 WHERE id = $1 RETURNING ",
        conversation_columns!()
    ))
    .bind(id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("locking a conversation"))?;
    row.as_ref()
        .map(rows::conversation)
        .transpose()?
        .ok_or_else(|| RepositoryError::not_found("conversation", id))
}

/// Takes the conversation's row lock and refuses a rewrite decided on a state that no
/// longer holds: the boundary moved, or a turn of the conversation runs.
pub(super) async fn check_guard(
    conn: &mut PgConnection,
    guard: &RewriteGuard,
    action: Rewrite,
) -> RepoResult<()> {
    let conversation = lock_conversation(conn, guard.conversation_id).await?;
    if conversation.history_boundary() != guard.boundary {
        return Err(changed(action));
    }
    ensure_no_running_turn(conn, guard.conversation_id).await
}

/// The refusal of a rewrite whose guard no longer holds.
pub(super) fn changed(action: Rewrite) -> RepositoryError {
    RepositoryError::conversation_changed(action)
}
