//! What the rewrite rules read of a turn: its messages and the `seq` of its last row.

use smallebot_core::entities::TurnContents;
use smallebot_core::ids::TurnId;
use smallebot_core::message_columns;
use smallebot_core::repository::RepoResult;
use sqlx::PgConnection;

use crate::fetch::fetch_turn;
use crate::rows;
use crate::tx::storage;

/// A turn with its messages and the `seq` of its last row.
pub(super) async fn turn_contents(
    conn: &mut PgConnection,
    turn_id: TurnId,
) -> RepoResult<Option<TurnContents>> {
    let Some(turn) = fetch_turn(conn, turn_id).await? else {
        return Ok(None);
    };
    let found = sqlx::query(concat!(
        "SELECT ",
        message_columns!(),
        " FROM messages WHERE turn_id = $1 ORDER BY seq"
    ))
    .bind(turn_id.to_string())
    .fetch_all(&mut *conn)
    .await
    .map_err(storage("reading a turn's messages"))?;
    let mut messages: Vec<_> = found.iter().map(rows::message).collect::<RepoResult<_>>()?;
    crate::attachment_rows::fill_attachments(&mut *conn, &mut messages).await?;
    let last_row_seq: Option<i64> = sqlx::query_scalar(
        "SELECT MAX(seq) FROM (SELECT seq FROM messages WHERE turn_id = $1 \
         UNION ALL SELECT seq FROM tool_calls WHERE turn_id = $1 \
         UNION ALL SELECT seq FROM think_blocks WHERE turn_id = $1) AS rows",
    )
    .bind(turn_id.to_string())
    .fetch_one(&mut *conn)
    .await
    .map_err(storage("reading a turn's rows"))?;
    Ok(Some(TurnContents {
        turn,
        messages,
        last_row_seq,
    }))
}
