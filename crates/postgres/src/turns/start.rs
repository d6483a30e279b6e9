//! The one-running-turn check: a conversation's running turn, read on a connection
//! (under the conversation's row lock when a rewrite checks its guard on the writer).

use smallebot_core::RepositoryError;
use smallebot_core::entities::Turn;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use crate::rows::{self, turn_columns};
use crate::tx::storage;

/// The conversation's running turn, if any.
pub(crate) async fn running_turn_on(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
) -> RepoResult<Option<Turn>> {
    let row = sqlx::query(concat!(
        "SELECT ",
        turn_columns!(),
        " FROM turns WHERE conversation_id = $1 AND status = 'running' ORDER BY seq LIMIT 1"
    ))
    .bind(conversation_id.to_string())
    .fetch_optional(&mut *conn)
    .await
    .map_err(storage("checking for a running turn"))?;
    row.as_ref().map(rows::turn).transpose()
}

/// Refuses with [`RepositoryError::TurnRunning`] while the conversation has a running
/// turn (call it holding the conversation's row lock).
pub(crate) async fn ensure_no_running_turn(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
) -> RepoResult<()> {
    match running_turn_on(conn, conversation_id).await? {
        Some(running) => Err(RepositoryError::TurnRunning(Box::new(running))),
        None => Ok(()),
    }
}
