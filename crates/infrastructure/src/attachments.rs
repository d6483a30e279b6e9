//! `AttachmentRepository` on SQLite: rows in `attachments` (jobs of the writer,
//! `write/attachments.rs`), content as files beside the database (`content_files.rs`),
//! one per digest.

use std::sync::Arc;

use async_trait::async_trait;
use smallebot_core::RepositoryError;
use smallebot_core::attachment_columns;
use smallebot_core::entities::{Attachment, NewAttachment};
use smallebot_core::ids::{AttachmentId, ConversationId};
use smallebot_core::repository::{AttachmentRepository, RepoResult};
use smallebot_core::rules::attachment_link::check_content;
use smallebot_core::rules::attachment_search::searchable_text;
use smallebot_core::rules::upload_quota::UploadQuotas;
use smallebot_core::time::Timestamp;

use crate::database::SqliteStore;
use crate::queries;
use crate::rows;
use crate::time::now;
use crate::write::{AttachmentPut, AttachmentsPut, Write};

/// Runs blocking file work on tokio's blocking pool.
pub(crate) async fn blocking<T: Send + 'static>(
    action: &'static str,
    work: impl FnOnce() -> RepoResult<T> + Send + 'static,
) -> RepoResult<T> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| RepositoryError::Storage {
            action,
            message: err.to_string(),
        })?
}

/// The attachment row of an upload, stamped now.
pub(crate) fn new_row(new: &NewAttachment) -> Attachment {
    let facts = &new.facts;
    Attachment {
        id: AttachmentId::new(),
        conversation_id: new.conversation_id,
        message_id: None,
        name: facts.name.clone(),
        media_type: facts.media_type.clone(),
        kind: facts.kind,
        size: facts.size,
        sha256: facts.sha256.clone(),
        image_size: facts.image_size,
        created_at: now().0,
    }
}

#[async_trait]
impl AttachmentRepository for SqliteStore {
    async fn put_attachments(
        &self,
        new: &[NewAttachment],
        quotas: &UploadQuotas,
    ) -> RepoResult<Vec<Attachment>> {
        const ACTION: &str = "storing an attachment's content";
        if self.is_read_only() {
            return Err(RepositoryError::Storage {
                action: "storing an attachment",
                message: "the database is opened read-only".into(),
            });
        }
        let mut puts = Vec::with_capacity(new.len());
        let mut written = Vec::with_capacity(new.len());
        for one in new {
            let content = Arc::new(one.content.clone());
            let (files, sha256) = (self.content_files().clone(), one.facts.sha256.clone());
            let (checked, bytes) = (one.clone(), Arc::clone(&content));
            let search_text = blocking(ACTION, move || {
                check_content(&checked)?;
                files.write(&sha256, &bytes)?;
                Ok(searchable_text(&checked.facts, &checked.content))
            })
            .await;
            written.push(one.facts.sha256.clone());
            let search_text = match search_text {
                Ok(text) => text,
                Err(err) => {
                    self.sweep_contents(written).await;
                    return Err(err);
                }
            };
            puts.push(AttachmentPut {
                attachment: new_row(one),
                search_text,
                files: self.content_files().clone(),
                content,
            });
        }
        let put = AttachmentsPut {
            puts,
            quotas: *quotas,
            now: now().0,
        };
        let stored = self
            .writer()
            .run(|reply| Write::PutAttachments { put, reply })
            .await;
        match stored {
            Ok((rows, expired)) => {
                self.sweep_contents(expired).await;
                Ok(rows)
            }
            Err(err) => {
                // Nothing half-stored: the files written for refused rows go, unless
                // another attachment uses them.
                self.sweep_contents(written).await;
                Err(err)
            }
        }
    }

    async fn delete_unsent_before(&self, before: Timestamp) -> RepoResult<u64> {
        let (deleted, sha256s) = self
            .writer()
            .run(|reply| Write::DeleteUnsent { before, reply })
            .await?;
        self.sweep_contents(sha256s).await;
        Ok(deleted)
    }

    async fn get_attachment(&self, id: AttachmentId) -> RepoResult<Option<Attachment>> {
        self.readers()
            .read("reading an attachment", move |conn| {
                queries::attachment(conn, id)
            })
            .await
    }

    async fn attachment_content(&self, id: AttachmentId) -> RepoResult<Option<Vec<u8>>> {
        let Some(attachment) = self.get_attachment(id).await? else {
            return Ok(None);
        };
        let files = self.content_files().clone();
        let content = blocking("reading an attachment's content", move || {
            files.read(&attachment.sha256)
        })
        .await?;
        content.map(Some).ok_or_else(|| {
            RepositoryError::Corrupt(format!(
                "the content of attachment {id} is missing from the attachments folder"
            ))
        })
    }

    async fn conversation_attachments(
        &self,
        conversation_id: ConversationId,
    ) -> RepoResult<Vec<Attachment>> {
        const ACTION: &str = "listing a conversation's attachments";
        self.readers()
            .read(ACTION, move |conn| {
                queries::all(
                    conn,
                    ACTION,
                    concat!(
                        "SELECT ",
                        attachment_columns!(),
                        " FROM attachments a WHERE a.conversation_id = ?1 ORDER BY a.rowid"
                    ),
                    [conversation_id.to_string()],
                    rows::attachment,
                )
            })
            .await
    }
}
