//! Files sent with a chat message: `@path` in the message (or `@server:uri`, an MCP
//! server's resource), `/attach PATH` before it, or a pasted line of image paths. Each is read and checked before anything is
//! stored, then uploaded and sent with the message.

use std::io::Write;
use std::path::PathBuf;

use smallebot_core::ids::{AttachmentId, ConversationId};
use smallebot_core::rules::attachment_text::attachment_label;
use smallebot_core::rules::mcp_mentions::resource_mentions;

use super::Repl;
use crate::attach_files::{self, FileToAttach};
use crate::error::TerminalError;

impl<W: Write> Repl<W> {
    /// The files to send with `text`: those attached with `/attach` and those it
    /// mentions (`@path`, relative to the working directory), read and checked for the
    /// open conversation's model; `None` when one cannot be read or is refused — said
    /// here, and nothing is sent (the `/attach` files stay for the next message).
    pub(super) async fn mentioned_files(
        &mut self,
        text: &str,
    ) -> Result<Option<Vec<FileToAttach>>, TerminalError> {
        let servers = self.mcp_servers();
        let paths = attach_files::mentioned_paths(text, &servers);
        let resources = resource_mentions(text, &servers);
        if paths.is_empty() && resources.is_empty() && self.pending.is_empty() {
            return Ok(Some(Vec::new()));
        }
        let read = match attach_files::read_files(&paths, self.max_file_bytes()) {
            Ok(mut files) => self.read_resources(&resources).await.map(|more| {
                files.extend(more);
                files
            }),
            Err(error) => Err(error),
        };
        let checked = match read {
            Ok(files) => self.check_with_pending(&files).await.map(|()| files),
            Err(error) => Err(error),
        };
        match checked {
            Ok(mentioned) => {
                let mut files = std::mem::take(&mut self.pending);
                files.extend(mentioned);
                Ok(Some(files))
            }
            Err(error) => {
                let again = if self.terminal {
                    " (Up brings it back to edit)"
                } else {
                    ""
                };
                self.say(&format!("error: {error} — the message was not sent{again}"))?;
                Ok(None)
            }
        }
    }

    /// agent.json's `attachments.maxFileBytes`.
    fn max_file_bytes(&self) -> i64 {
        self.service.settings().attachments.max_file_bytes
    }

    /// Checks `files` together with the ones already attached against the limits and
    /// the open conversation's model.
    async fn check_with_pending(&self, files: &[FileToAttach]) -> Result<(), TerminalError> {
        let conversation = match self.conversation {
            Some(id) => self.service.store().get_conversation(id).await?,
            None => None,
        };
        let all: Vec<&FileToAttach> = self.pending.iter().chain(files).collect();
        attach_files::check(&self.service, conversation.as_ref(), &all)
    }

    /// `/attach PATH` (or a pasted image path): the files are read and checked now and
    /// go with the next message; nothing is attached when one cannot be.
    pub(super) async fn attach(&mut self, paths: &[PathBuf]) -> Result<(), TerminalError> {
        let checked = match attach_files::read_files(paths, self.max_file_bytes()) {
            Ok(files) => self.check_with_pending(&files).await.map(|()| files),
            Err(error) => Err(error),
        };
        match checked {
            Ok(files) => {
                for file in files {
                    self.say(&format!(
                        "attached {} — it goes with your next message",
                        file.label()
                    ))?;
                    self.pending.push(file);
                }
            }
            Err(error) => self.say(&format!("error: {error} — nothing attached"))?,
        }
        Ok(())
    }

    /// `/attach` alone: the files waiting for the next message.
    pub(super) fn list_attached(&mut self) -> Result<(), TerminalError> {
        if self.pending.is_empty() {
            return self.say(
                "nothing attached to your next message (/attach PATH or @path in it adds a file)",
            );
        }
        let mut lines = vec!["attached to your next message:".to_owned()];
        lines.extend(
            self.pending
                .iter()
                .map(|file| format!("  {}", file.label())),
        );
        lines.push("(/attach clear takes them off)".to_owned());
        self.say(&lines.join("\n"))
    }

    /// What the user is told on leaving a conversation (`/new`, `/switch`, `/resume`)
    /// with files attached: they stay for the next message, wherever it goes.
    pub(super) fn say_still_attached(&mut self) -> Result<(), TerminalError> {
        let line = match self.pending.len() {
            0 => return Ok(()),
            1 => "1 attached file still goes with your next message \
                  (/attach lists it, /attach clear takes it off)"
                .to_owned(),
            n => format!(
                "{n} attached files still go with your next message \
                 (/attach lists them, /attach clear takes them off)"
            ),
        };
        self.say(&line)
    }

    /// `/attach clear`: the files waiting for the next message are taken off.
    pub(super) fn clear_attached(&mut self) -> Result<(), TerminalError> {
        let count = std::mem::take(&mut self.pending).len();
        self.say(&match count {
            0 => "nothing was attached".to_owned(),
            1 => "took off 1 attached file".to_owned(),
            n => format!("took off {n} attached files"),
        })
    }

    /// Uploads `files` into `conversation` and shows their labels; `None` when that
    /// failed (said here).
    pub(super) async fn upload_files(
        &mut self,
        conversation: ConversationId,
        files: Vec<FileToAttach>,
    ) -> Result<Option<Vec<AttachmentId>>, TerminalError> {
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
