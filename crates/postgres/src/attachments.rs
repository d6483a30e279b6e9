//! `AttachmentRepository` on PostgreSQL: rows in `attachments`, content in
//! `attachment_contents` once per digest (in the database, so every serve process sees
//! it). Stores are jobs of the writer (`write/attachments.rs`); reads are here, with
//! how messages read for the pipeline get their attachments ([`fill_attachments`]).

use async_trait::async_trait;
use smallebot_core::entities::{
    Attachment, AttachmentKind, HistoryRow, ImageSize, Message, NewAttachment,
};
use smallebot_core::ids::{AttachmentId, ConversationId, MessageId};
use smallebot_core::repository::{AttachmentRepository, RepoResult};
use smallebot_core::rules::attachment_link::{check_content, hand_out, user_seq_span};
use smallebot_core::rules::attachment_search::searchable_text;
use sqlx::postgres::PgRow;

use crate::rows::{corrupt, get, id};
use crate::store::PgStore;
use crate::tx::{now, pg_text, storage};
use crate::write::{Edit, PutAttachment};

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

#[async_trait]
impl AttachmentRepository for PgStore {
    async fn put_attachment(&self, new: &NewAttachment) -> RepoResult<Attachment> {
        check_content(new)?;
        let facts = &new.facts;
        let put = PutAttachment {
            attachment: Attachment {
                id: AttachmentId::new(),
                conversation_id: new.conversation_id,
                message_id: None,
                name: pg_text(&facts.name).into_owned(),
                media_type: facts.media_type.clone(),
                kind: facts.kind,
                size: facts.size,
                sha256: facts.sha256.clone(),
                image_size: facts.image_size,
                created_at: now(),
            },
            search_text: pg_text(&searchable_text(facts, &new.content)).into_owned(),
            content: new.content.clone(),
        };
        self.edit("storing an attachment", |reply| {
            Edit::PutAttachment(Box::new(put), reply)
        })
        .await
    }

    async fn get_attachment(&self, id: AttachmentId) -> RepoResult<Option<Attachment>> {
        let row = sqlx::query(concat!(
            "SELECT ",
            attachment_columns!(),
            " FROM attachments a WHERE a.id = $1"
        ))
        .bind(id.to_string())
        .fetch_optional(self.pool())
        .await
        .map_err(storage("reading an attachment"))?;
        row.as_ref().map(attachment).transpose()
    }

    async fn attachment_content(&self, id: AttachmentId) -> RepoResult<Option<Vec<u8>>> {
        sqlx::query_scalar(
            "SELECT c.content FROM attachments a \
             JOIN attachment_contents c ON c.sha256 = a.sha256 WHERE a.id = $1",
        )
        .bind(id.to_string())
        .fetch_optional(self.pool())
        .await
        .map_err(storage("reading an attachment's content"))
    }

    async fn conversation_attachments(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<Attachment>> {
        let found = sqlx::query(concat!(
            "SELECT ",
            attachment_columns!(),
            " FROM attachments a WHERE a.conversation_id = $1 ORDER BY a.upload_order"
        ))
        .bind(conversation_id.to_string())
        .fetch_all(self.pool())
        .await
        .map_err(storage("listing a conversation's attachments"))?;
        found.iter().map(attachment).collect()
    }
}
