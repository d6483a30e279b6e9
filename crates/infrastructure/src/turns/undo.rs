//! `/undo`: the last turn in the context taken out of it, its rows kept and marked.

use smallebot_core::entities::Turn;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::RepoResult;

use super::{ensure_turn_not_summarized, fetch_turn};
use crate::database::SqliteStore;
use crate::leases::ensure_no_running_turn;
use crate::rows;
use crate::tx::{now, storage};

/// The turn columns `rows::turn` reads.
const LAST_TURN_IN_CONTEXT: &str = "\
    SELECT id, conversation_id, seq, thinking_mode, status, error, created_at, completed_at, \
      owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at FROM turns \
    WHERE conversation_id = ?1 AND undone_at IS NULL ORDER BY seq DESC LIMIT 1";

/// Marks the turn and its rows undone (?1 turn, ?2 now); triggers take the rows' tokens
/// out of `context_tokens`.
const MARK_UNDONE: &str = "\
    UPDATE turns SET undone_at = ?2 WHERE id = ?1; \
    UPDATE messages SET undone = 1 WHERE turn_id = ?1; \
    UPDATE tool_calls SET undone = 1 WHERE turn_id = ?1; \
    UPDATE think_blocks SET undone = 1 WHERE turn_id = ?1";

/// Brings an undone turn back into the context (?1 turn): what regenerating it keeps.
pub(super) const RESTORE: &str = "\
    UPDATE turns SET undone_at = NULL WHERE id = ?1; \
    UPDATE messages SET undone = 0 WHERE turn_id = ?1; \
    UPDATE tool_calls SET undone = 0 WHERE turn_id = ?1; \
    UPDATE think_blocks SET undone = 0 WHERE turn_id = ?1";

impl SqliteStore {
    /// See [`TurnRepository::undo_last_turn`](smallebot_core::repository::TurnRepository::undo_last_turn).
    pub(super) async fn undo_last(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Option<Turn>> {
        let mut tx = self.write_tx("undoing a turn").await?;
        ensure_no_running_turn(&mut tx, conversation_id).await?;
        let row = sqlx::query(LAST_TURN_IN_CONTEXT)
            .bind(conversation_id.to_string())
            .fetch_optional(&mut *tx)
            .await
            .map_err(storage("finding the last turn"))?;
        let Some(turn) = row.as_ref().map(rows::turn).transpose()? else {
            return Ok(None);
        };
        ensure_turn_not_summarized(&mut tx, &turn, "the last turn").await?;
        let (_, at) = now();
        sqlx::query(MARK_UNDONE)
            .bind(turn.id.to_string())
            .bind(at)
            .execute(&mut *tx)
            .await
            .map_err(storage("marking a turn undone"))?;
        let undone = fetch_turn(&mut tx, turn.id).await?;
        tx.commit().await.map_err(storage("undoing a turn"))?;
        Ok(undone)
    }
}
