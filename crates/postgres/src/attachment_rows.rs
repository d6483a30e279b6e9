//! Attachment rows as read by the repository, the writer and the history reads: a
//! message's attachments, and how messages read for the pipeline get
//! their attachments ([`fill_attachments`]). Both the reads (`attachments.rs`) and the
//! writer's jobs use them, so they stand apart from either.

use smallebot_core::attachment_columns;
use smallebot_core::entities::{Attachment, HistoryRow, Message};
use smallebot_core::ids::MessageId;
use smallebot_core::repository::RepoResult;
use smallebot_core::rules::attachment_link::hand_out;
use smallebot_core::rules::attachment_link::user_seq_span;

use crate::rows::attachment;
use crate::tx::storage;

/// The attachments of message `id`, in upload order.
pub(crate) async fn message_attachments(
    conn: impl sqlx::PgExecutor<'_>,
    id: MessageId,
) -> RepoResult<Vec<Attachment>> {
    let found = sqlx::query(concat!(
        "SELECT ",
        attachment_columns!(),
        " FROM attachments a WHERE a.message_id = $1 ORDER BY a.upload_order"
    ))
    .bind(id.to_string())
    .fetch_all(conn)
    .await
    .map_err(storage("reading a message's attachments"))?;
    found.iter().map(attachment).collect()
}

/// Gives the user messages among `messages` (all of one conversation) their
/// attachments: one query over the span of their `seq`, none without a user message.
pub(crate) async fn fill_attachments<'a>(
    conn: impl sqlx::PgExecutor<'_>,
    messages: impl IntoIterator<Item = &'a mut Message>,
) -> RepoResult<()> {
    let Some((mut users, low, high)) = user_seq_span(messages) else {
        return Ok(());
    };
    let found = sqlx::query(concat!(
        "SELECT ",
        attachment_columns!(),
        " FROM attachments a JOIN messages m ON m.id = a.message_id \
         WHERE a.conversation_id = $1 AND m.seq BETWEEN $2 AND $3 ORDER BY a.upload_order"
    ))
    .bind(users[0].conversation_id.to_string())
    .bind(low)
    .bind(high)
    .fetch_all(conn)
    .await
    .map_err(storage("reading messages' attachments"))?;
    let found = found
        .iter()
        .map(attachment)
        .collect::<RepoResult<Vec<_>>>()?;
    hand_out(&mut users, found);
    Ok(())
}

/// [`fill_attachments`] for the messages among history rows.
pub(crate) async fn fill_row_attachments(
    conn: impl sqlx::PgExecutor<'_>,
    rows: &mut [HistoryRow],
) -> RepoResult<()> {
    fill_attachments(
        conn,
        rows.iter_mut().filter_map(|row| match row {
            HistoryRow::Message(m) => Some(m),
            _ => None,
        }),
    )
    .await
}
