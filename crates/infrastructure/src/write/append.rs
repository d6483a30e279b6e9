//! The statements several writes share: appending a message, ending a turn, and
//! indexing pending search rows.

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{AnswerCut, Message, NewMessage, Turn, TurnStatus};
use smallebot_core::ids::{MessageId, TurnId};
use smallebot_core::repository::RepoResult;
use smallebot_core::turn_columns;

use crate::queries::{execute, first, int0};
use crate::rows;
use crate::search_index::{
    INDEX_BATCH_ROWS, INDEX_PENDING_INSERT, INDEX_PENDING_MARK, PENDING_ROWS,
};
use crate::time::{Now, now};

/// Inserts a message with its conversation's next `seq` (the write connection's
/// triggers advance `last_seq`).
pub(super) fn insert_message(
    conn: &Connection,
    message: &NewMessage,
    is_edited: bool,
    (at, at_text): &Now,
) -> RepoResult<Message> {
    let id = MessageId::new();
    let seq = first(
        conn,
        "appending a message",
        "INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, \
         created_at, is_edited) \
         SELECT ?3, id, ?4, last_seq + 1, ?5, ?6, ?7, ?1, ?8 FROM conversations WHERE id = ?2 \
         RETURNING seq",
        (
            at_text,
            message.conversation_id.to_string(),
            id.to_string(),
            message.turn_id.to_string(),
            message.role.as_str(),
            &message.content,
            message.token_count,
            i64::from(is_edited),
        ),
        int0,
    )?
    .ok_or_else(|| RepositoryError::not_found("conversation", message.conversation_id))?;
    Ok(Message::stored(id, message.clone(), seq, *at, is_edited))
}

/// Ends a turn and its lease; when a full batch of search rows waits, indexes them.
pub(super) fn finish(
    conn: &Connection,
    turn_id: TurnId,
    status: TurnStatus,
    error: Option<&str>,
    cut: Option<AnswerCut>,
) -> RepoResult<Turn> {
    let (_, at) = now();
    let turn = first(
        conn,
        "finishing a turn",
        concat!(
            "UPDATE turns SET status = ?1, error = ?2, completed_at = ?3, owner_pid = NULL, \
             owner_host = NULL, owner_started_at = NULL, heartbeat_at = NULL, cut = ?5 \
             WHERE id = ?4 RETURNING ",
            turn_columns!()
        ),
        (
            status.as_str(),
            error,
            at,
            turn_id.to_string(),
            cut.map(AnswerCut::as_str),
        ),
        rows::turn,
    )?
    .ok_or_else(|| RepositoryError::not_found("turn", turn_id))?;
    index_pending_if_full(conn)?;
    Ok(turn)
}

/// Adds every stored row not indexed yet to the full-text index.
pub(super) fn index_pending(conn: &Connection) -> RepoResult<()> {
    const ACTION: &str = "updating the search index";
    execute(conn, ACTION, INDEX_PENDING_INSERT, [])?;
    execute(conn, ACTION, INDEX_PENDING_MARK, [])?;
    Ok(())
}

/// Indexes the pending search rows when they are at least a full batch (what the end
/// of a turn does, so the batch a search may have to index stays small).
pub(super) fn index_pending_if_full(conn: &Connection) -> RepoResult<()> {
    let pending = first(
        conn,
        "counting unindexed search rows",
        PENDING_ROWS,
        [],
        int0,
    )?
    .unwrap_or(0);
    if pending >= INDEX_BATCH_ROWS {
        index_pending(conn)?;
    }
    Ok(())
}
