//! `@path` in a chat message: the files it mentions are read and checked before
//! anything is stored, then uploaded and sent with the message.

use std::io::Write;

use smallebot_core::ids::{AttachmentId, ConversationId};
use smallebot_core::rules::attachment_text::attachment_label;

use super::Repl;
use crate::attach_files::{self, FileToAttach};
use crate::error::HostError;

impl<W: Write> Repl<W> {
    /// The files `text` mentions (`@path`, relative to the working directory), read and
    /// checked for the open conversation's model; `None` when one cannot be read or is
    /// refused — said here, and nothing is sent.
    pub(super) async fn mentioned_files(
        &mut self,
        text: &str,
    ) -> Result<Option<Vec<FileToAttach>>, HostError> {
        let paths = attach_files::mentioned_paths(text);
        if paths.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let checked = match attach_files::read_files(&paths) {
            Ok(files) => {
                let conversation = match self.conversation {
                    Some(id) => self.service.store().get_conversation(id).await?,
                    None => None,
                };
                attach_files::check(&self.service, conversation.as_ref(), &files).map(|()| files)
            }
            Err(error) => Err(error),
        };
        match checked {
            Ok(files) => Ok(Some(files)),
            Err(error) => {
                self.say(&format!("error: {error} — the message was not sent"))?;
                Ok(None)
            }
        }
    }

    /// Uploads `files` into `conversation` and shows their labels; `None` when that
    /// failed (said here).
    pub(super) async fn upload_files(
        &mut self,
        conversation: ConversationId,
        files: Vec<FileToAttach>,
    ) -> Result<Option<Vec<AttachmentId>>, HostError> {
        match attach_files::upload(&self.service, conversation, files).await {
            Ok(attached) => {
                for attachment in &attached {
                    self.say(&format!("attached {}", attachment_label(attachment)))?;
                }
                Ok(Some(attached.into_iter().map(|a| a.id).collect()))
            }
            Err(error) => {
                self.say(&format!("error: {error} — the message was not sent"))?;
                Ok(None)
            }
        }
    }
}
