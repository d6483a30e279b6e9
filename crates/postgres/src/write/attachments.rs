//! The writes of attachments on the writer's connection: an upload stored with its
//! content (once per digest), uploads linked to the user message that carries them,
//! and an edit's new version taking the old one's. Content no attachment names any
//! more is deleted by the schema's trigger, in the transaction that deleted the last.

use std::collections::HashSet;

use smallebot_core::RepositoryError;
use smallebot_core::attachment_columns;
use smallebot_core::entities::Attachment;
use smallebot_core::ids::{AttachmentId, ConversationId, MessageId};
use smallebot_core::repository::RepoResult;
use smallebot_core::rules::attachment_link::check_link;
use smallebot_core::rules::upload_quota::{PendingBytes, UploadQuotas};
use smallebot_core::time::Timestamp;
use sqlx::Connection as _;
use sqlx::PgConnection;

use crate::attachment_rows::message_attachments;
use crate::rows::attachment;
use crate::tx::storage;

/// An upload to store (see `AttachmentRepository::put_attachments`).
#[derive(Debug)]
pub(crate) struct PutAttachment {
    /// The row.
    pub attachment: Attachment,
    /// What the full-text index holds for it.
    pub search_text: String,
    /// The content.
    pub content: Vec<u8>,
}

/// Stores an upload and, unless its digest is stored already, its content, in one
/// statement: nothing when the conversation does not exist.
const PUT: &str = "\
    WITH conversation AS (SELECT id FROM conversations WHERE id = $2), \
    content AS (INSERT INTO attachment_contents (sha256, content) \
      SELECT $7, $11 FROM conversation ON CONFLICT (sha256) DO NOTHING) \
    INSERT INTO attachments (id, conversation_id, name, media_type, kind, size, sha256, \
      image_width, image_height, search_text, created_at) \
    SELECT $1, conversation.id, $3, $4, $5, $6, $7, $8, $9, $10, $12 FROM conversation \
    RETURNING id";

/// Uploads into one conversation, stored together under the quotas.
#[derive(Debug)]
pub(crate) struct PutAttachments {
    /// The uploads, in order.
    pub puts: Vec<PutAttachment>,
    /// The quotas they are held to.
    pub quotas: UploadQuotas,
    /// When they were uploaded (what expired is judged from it).
    pub now: Timestamp,
}

const PUT_ALL: &str = "storing attachments";

/// See `AttachmentRepository::put_attachments`: in one transaction, under an advisory
/// lock per user (so two uploads of a user, from any process, check the quotas one
/// after the other), the expired unsent uploads deleted, the quotas checked with what
/// still waits, then every upload stored.
pub(super) async fn put_all(
    conn: &mut PgConnection,
    put: &PutAttachments,
) -> RepoResult<Vec<Attachment>> {
    let Some(first) = put.puts.first() else {
        return Ok(Vec::new());
    };
    let conversation_id = first.attachment.conversation_id;
    if put
        .puts
        .iter()
        .any(|p| p.attachment.conversation_id != conversation_id)
    {
        return Err(RepositoryError::Conflict(
            "the uploads of one request go into one conversation; nothing was stored".into(),
        ));
    }
    let mut tx = conn.begin().await.map_err(storage(PUT_ALL))?;
    let user: Option<String> =
        sqlx::query_scalar("SELECT user_name FROM conversations WHERE id = $1 FOR SHARE")
            .bind(conversation_id.to_string())
            .fetch_optional(&mut *tx)
            .await
            .map_err(storage(PUT_ALL))?;
    let Some(user) = user else {
        return Err(RepositoryError::not_found("conversation", conversation_id));
    };
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('uploads:' || $1, 0))")
        .bind(&user)
        .execute(&mut *tx)
        .await
        .map_err(storage(PUT_ALL))?;
    let cutoff = put.quotas.expired_before(put.now);
    delete_unsent_before(&mut tx, cutoff).await?;
    let (user_bytes, conversation_bytes): (i64, i64) = sqlx::query_as(
        "SELECT COALESCE(SUM(a.size), 0)::BIGINT, \
                COALESCE(SUM(a.size) FILTER (WHERE a.conversation_id = $1), 0)::BIGINT \
         FROM attachments a JOIN conversations c ON c.id = a.conversation_id \
         WHERE a.message_id IS NULL AND a.created_at >= $2 AND c.user_name = $3",
    )
    .bind(conversation_id.to_string())
    .bind(cutoff)
    .bind(&user)
    .fetch_one(&mut *tx)
    .await
    .map_err(storage("adding up the files waiting unsent"))?;
    let adding = put
        .puts
        .iter()
        .fold(0_i64, |sum, p| sum.saturating_add(p.attachment.size));
    put.quotas
        .check_pending(
            PendingBytes {
                user: user_bytes,
                conversation: conversation_bytes,
            },
            adding,
        )
        .map_err(RepositoryError::OverQuota)?;
    let mut stored = Vec::with_capacity(put.puts.len());
    for one in &put.puts {
        stored.push(put_one(&mut tx, one).await?);
    }
    tx.commit().await.map_err(storage(PUT_ALL))?;
    Ok(stored)
}

/// Deletes the uploads never sent from before `before` (the schema's trigger deletes
/// content no attachment names any more); how many.
pub(super) async fn delete_unsent_before(
    conn: &mut PgConnection,
    before: Timestamp,
) -> RepoResult<u64> {
    let done = sqlx::query("DELETE FROM attachments WHERE message_id IS NULL AND created_at < $1")
        .bind(before)
        .execute(&mut *conn)
        .await
        .map_err(storage("deleting expired uploads"))?;
    Ok(done.rows_affected())
}

/// Stores one upload.
async fn put_one(conn: &mut PgConnection, put: &PutAttachment) -> RepoResult<Attachment> {
    let a = &put.attachment;
    let stored: Option<String> = sqlx::query_scalar(PUT)
        .bind(a.id.to_string())
        .bind(a.conversation_id.to_string())
        .bind(&a.name)
        .bind(&a.media_type)
        .bind(a.kind.as_str())
        .bind(a.size)
        .bind(&a.sha256)
        .bind(a.image_size.map(|s| i64::from(s.width)))
        .bind(a.image_size.map(|s| i64::from(s.height)))
        .bind(&put.search_text)
        .bind(&put.content)
        .bind(a.created_at)
        .fetch_optional(&mut *conn)
        .await
        .map_err(storage("storing an attachment"))?;
    match stored {
        Some(_) => Ok(a.clone()),
        None => Err(RepositoryError::not_found(
            "conversation",
            a.conversation_id,
        )),
    }
}

/// Links the uploads `ids` (each once) to `message_id`, a user message of
/// `conversation_id`, inside the caller's transaction; returns them in upload order.
/// Refuses an unknown id, one of another conversation and one already on a message
/// (the caller then rolls everything back).
pub(super) async fn link(
    conn: &mut PgConnection,
    conversation_id: ConversationId,
    message_id: MessageId,
    ids: &[AttachmentId],
) -> RepoResult<Vec<Attachment>> {
    const ACTION: &str = "linking attachments to their message";
    let mut seen = HashSet::new();
    for id in ids.iter().filter(|id| seen.insert(**id)) {
        let row = sqlx::query(concat!(
            "SELECT ",
            attachment_columns!(),
            " FROM attachments a WHERE a.id = $1 FOR UPDATE"
        ))
        .bind(id.to_string())
        .fetch_optional(&mut *conn)
        .await
        .map_err(storage(ACTION))?;
        let found = row.as_ref().map(attachment).transpose()?;
        check_link(*id, found.as_ref(), conversation_id)?;
        sqlx::query("UPDATE attachments SET message_id = $1 WHERE id = $2")
            .bind(message_id.to_string())
            .bind(id.to_string())
            .execute(&mut *conn)
            .await
            .map_err(storage(ACTION))?;
    }
    message_attachments(&mut *conn, message_id).await
}

/// Moves the attachments of message `from` to message `to` (an edit's new version);
/// returns them.
pub(super) async fn move_to(
    conn: &mut PgConnection,
    from: MessageId,
    to: MessageId,
) -> RepoResult<Vec<Attachment>> {
    sqlx::query("UPDATE attachments SET message_id = $2 WHERE message_id = $1")
        .bind(from.to_string())
        .bind(to.to_string())
        .execute(&mut *conn)
        .await
        .map_err(storage(
            "keeping a message's attachments on its new version",
        ))?;
    message_attachments(&mut *conn, to).await
}
