//! What an edit and a regeneration discard: the rows of a turn but its user message,
//! and every later turn (attachments included), its answer so far kept as a version.

use rusqlite::Connection;
use smallebot_core::entities::Turn;
use smallebot_core::ids::MessageId;
use smallebot_core::repository::RepoResult;

use super::attachments;
use crate::queries::{self, execute};
use crate::time::now;

/// Keeps `turn`'s answer so far (its assistant messages joined by a blank line) as a
/// version of `answered`, the user message it answered; nothing when it has none.
fn keep_answer(conn: &Connection, turn: &Turn, answered: MessageId) -> RepoResult<()> {
    const ACTION: &str = "keeping a replaced answer";
    let parts = queries::all(
        conn,
        ACTION,
        "SELECT content FROM messages WHERE turn_id = ?1 AND role = 'assistant' \
         AND replaced_by IS NULL ORDER BY seq",
        [turn.id.to_string()],
        queries::text0,
    )?;
    if parts.is_empty() {
        return Ok(());
    }
    let (_, at) = now();
    execute(
        conn,
        ACTION,
        "INSERT INTO answer_versions (conversation_id, turn_id, message_id, content, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
        (
            turn.conversation_id.to_string(),
            turn.id.to_string(),
            answered.to_string(),
            parts.join("\n\n"),
            at,
        ),
    )?;
    Ok(())
}

/// Deletes every turn after `turn` (their rows cascade, attachments included) and
/// `turn`'s rows other than `keep_message`, after keeping `turn`'s answer as a version
/// of `keep_message`. Returns the digests of the attachments discarded (to sweep once
/// committed).
pub(super) fn discard_after(
    conn: &Connection,
    turn: &Turn,
    keep_message: MessageId,
) -> RepoResult<Vec<String>> {
    keep_answer(conn, turn, keep_message)?;
    let turn_id = turn.id.to_string();
    let digests = attachments::digests(
        conn,
        "SELECT DISTINCT a.sha256 FROM attachments a \
         JOIN messages m ON m.id = a.message_id JOIN turns t ON t.id = m.turn_id \
         WHERE t.conversation_id = ?1 AND (t.seq > ?2 OR (t.id = ?3 AND m.id <> ?4))",
        (
            turn.conversation_id.to_string(),
            turn.seq,
            &turn_id,
            keep_message.to_string(),
        ),
    )?;
    execute(
        conn,
        "discarding later turns",
        "DELETE FROM turns WHERE conversation_id = ?1 AND seq > ?2",
        (turn.conversation_id.to_string(), turn.seq),
    )?;
    execute(
        conn,
        "discarding a turn's messages",
        "DELETE FROM messages WHERE turn_id = ?1 AND id <> ?2",
        (&turn_id, keep_message.to_string()),
    )?;
    execute(
        conn,
        "discarding a turn's tool calls",
        "DELETE FROM tool_calls WHERE turn_id = ?1",
        [&turn_id],
    )?;
    execute(
        conn,
        "discarding a turn's reasoning",
        "DELETE FROM think_blocks WHERE turn_id = ?1",
        [&turn_id],
    )?;
    Ok(digests)
}
