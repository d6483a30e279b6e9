//! `AttachmentRepository` on PostgreSQL: rows in `attachments`, content in
//! `attachment_contents` once per digest (in the database, so every serve process sees
//! it). Stores are jobs of the writer (`write/attachments.rs`); reads are here; how a
//! row is decoded is in `rows.rs`, how messages get their attachments in
//! `attachment_rows.rs`.

use async_trait::async_trait;
use smallebot_core::attachment_columns;
use smallebot_core::entities::{Attachment, NewAttachment};
use smallebot_core::ids::{AttachmentId, ConversationId};
use smallebot_core::repository::{AttachmentRepository, RepoResult};
use smallebot_core::rules::attachment_link::check_content;
use smallebot_core::rules::attachment_search::searchable_text;
use smallebot_core::rules::upload_quota::UploadQuotas;
use smallebot_core::time::Timestamp;

use crate::rows::attachment;
use crate::store::PgStore;
use crate::tx::{now, pg_text, storage};
use crate::write::{Edit, PutAttachment, PutAttachments};

#[async_trait]
impl AttachmentRepository for PgStore {
    async fn put_attachments(
        &self,
        new: &[NewAttachment],
        quotas: &UploadQuotas,
    ) -> RepoResult<Vec<Attachment>> {
        let mut puts = Vec::with_capacity(new.len());
        let created_at = now();
        for one in new {
            check_content(one)?;
            let facts = &one.facts;
            puts.push(PutAttachment {
                attachment: Attachment {
                    id: AttachmentId::new(),
                    conversation_id: one.conversation_id,
                    message_id: None,
                    name: pg_text(&facts.name).into_owned(),
                    media_type: facts.media_type.clone(),
                    kind: facts.kind,
                    size: facts.size,
                    sha256: facts.sha256.clone(),
                    image_size: facts.image_size,
                    created_at,
                },
                search_text: pg_text(&searchable_text(facts, &one.content)).into_owned(),
                content: one.content.clone(),
            });
        }
        let put = PutAttachments {
            puts,
            quotas: *quotas,
            now: created_at,
        };
        self.edit("storing attachments", |reply| {
            Edit::PutAttachments(Box::new(put), reply)
        })
        .await
    }

    async fn delete_unsent_before(&self, before: Timestamp) -> RepoResult<u64> {
        self.edit("deleting expired uploads", |reply| {
            Edit::DeleteUnsent(before, reply)
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
