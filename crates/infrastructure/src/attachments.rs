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

use crate::database::SqliteStore;
use crate::queries;
use crate::rows;
use crate::time::now;
use crate::write::{AttachmentPut, Write};

/// Runs blocking file work on tokio's blocking pool.
async fn blocking<T: Send + 'static>(
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
    async fn put_attachment(&self, new: &NewAttachment) -> RepoResult<Attachment> {
        const ACTION: &str = "storing an attachment's content";
        if self.is_read_only() {
            return Err(RepositoryError::Storage {
                action: "storing an attachment",
                message: "the database is opened read-only".into(),
            });
        }
        let content = Arc::new(new.content.clone());
        let (files, sha256) = (self.content_files().clone(), new.facts.sha256.clone());
        let (checked, written) = (new.clone(), Arc::clone(&content));
        let search_text = blocking(ACTION, move || {
            check_content(&checked)?;
            files.write(&sha256, &written)?;
            Ok(searchable_text(&checked.facts, &checked.content))
        })
        .await?;
        let put = AttachmentPut {
            attachment: new_row(new),
            search_text,
            files: self.content_files().clone(),
            content,
        };
        let stored = self
            .writer()
            .run(|reply| Write::PutAttachment { put, reply })
            .await;
        if stored.is_err() {
            // Nothing half-stored: the file written for a refused row goes, unless
            // another attachment uses it.
            self.sweep_contents(vec![new.facts.sha256.clone()]).await;
        }
        stored
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
