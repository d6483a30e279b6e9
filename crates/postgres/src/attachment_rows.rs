//! Attachment rows as read by the repository, the writer and the history reads: the
//! columns, one row as an [`Attachment`], and how messages read for the pipeline get
//! their attachments ([`fill_attachments`]). Both the reads (`attachments.rs`) and the
//! writer's jobs use them, so they stand apart from either.

use smallebot_core::entities::{Attachment, AttachmentKind, HistoryRow, ImageSize, Message};
use smallebot_core::ids::MessageId;
use smallebot_core::repository::RepoResult;
use smallebot_core::rules::attachment_link::hand_out;
use smallebot_core::rules::attachment_link::user_seq_span;
use sqlx::postgres::PgRow;

use crate::rows::{corrupt, get, id};
use crate::tx::storage;

/// The columns of an attachment (of `attachments a`), as [`attachment`] reads them.
macro_rules! attachment_columns {
    () => {
        "a.id, a.conversation_id, a.message_id, a.name, a.media_type, a.kind, a.size, \
         a.sha256, a.image_width, a.image_height, a.created_at"
    };
}
pub(crate) use attachment_columns;

/// A row of [`attachment_columns!`] as an attachment.
pub(crate) fn attachment(row: &PgRow) -> RepoResult<Attachment> {
    let width: Option<i64> = get(row, "image_width")?;
    let height: Option<i64> = get(row, "image_height")?;
    let image_size = match (width, height) {
        (Some(width), Some(height)) => Some(ImageSize {
            width: u32::try_from(width).map_err(|e| corrupt("image_width", e))?,
            height: u32::try_from(height).map_err(|e| corrupt("image_height", e))?,
        }),
        _ => None,
    };
    let kind: String = get(row, "kind")?;
    Ok(Attachment {
        id: id(row, "id")?,
        conversation_id: id(row, "conversation_id")?,
        message_id: get::<Option<String>>(row, "message_id")?
            .map(|raw| raw.parse().map_err(|e| corrupt("message_id", e)))
            .transpose()?,
        name: get(row, "name")?,
        media_type: get(row, "media_type")?,
        kind: AttachmentKind::parse(&kind).map_err(|e| corrupt("kind", e))?,
        size: get(row, "size")?,
        sha256: get(row, "sha256")?,
        image_size,
        created_at: get(row, "created_at")?,
    })
}

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
