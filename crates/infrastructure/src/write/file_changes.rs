//! The write of a turn's file changes (checkpoints).

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::entities::TurnFileChange;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::RepoResult;
use smallebot_core::stored_row::file_state_columns;

use crate::queries::{execute, first, int0};
use crate::time::now;

/// Stores `changes` of the turn `turn_id` of `conversation_id` (see
/// `CheckpointRepository::record_file_changes`).
pub(super) fn insert(
    conn: &Connection,
    conversation_id: ConversationId,
    turn_id: TurnId,
    changes: &[TurnFileChange],
) -> RepoResult<()> {
    const ACTION: &str = "storing a turn's file changes";
    let known = first(
        conn,
        ACTION,
        "SELECT count(*) FROM turns WHERE id = ?1 AND conversation_id = ?2",
        (turn_id.to_string(), conversation_id.to_string()),
        int0,
    )?;
    if known != Some(1) {
        return Err(RepositoryError::not_found(
            "turn",
            format!("{turn_id} of conversation {conversation_id}"),
        ));
    }
    let (_, at) = now();
    for stored in changes {
        let change = &stored.change;
        let (sha256_before, size_before) = file_state_columns(change.before.as_ref())?;
        let (sha256_after, size_after) = file_state_columns(change.after.as_ref())?;
        execute(
            conn,
            ACTION,
            "INSERT INTO turn_file_changes (conversation_id, turn_id, path, from_path, kind, \
             sha256_before, size_before, sha256_after, size_after, not_captured, rewind_id, \
             created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            rusqlite::params![
                conversation_id.to_string(),
                turn_id.to_string(),
                change.path,
                change.from,
                change.kind.as_str(),
                sha256_before,
                size_before,
                sha256_after,
                size_after,
                stored.not_captured,
                stored.rewind,
                at,
            ],
        )?;
    }
    Ok(())
}

/// Marks every change whose content before is one of `sha256s`, and that a rewind
/// could undo, not captured with `reason` (see
/// `CheckpointRepository::prune_checkpoint_contents`), in the job's savepoint.
pub(super) fn mark_pruned(conn: &Connection, sha256s: &[String], reason: &str) -> RepoResult<()> {
    const ACTION: &str = "marking the changes of pruned checkpoint contents";
    for sha256 in sha256s {
        execute(
            conn,
            ACTION,
            "UPDATE turn_file_changes SET not_captured = ?2 \
             WHERE sha256_before = ?1 AND not_captured IS NULL",
            (sha256, reason),
        )?;
    }
    Ok(())
}
