//! Files a person attaches on the terminal (`run --attach FILE`, `@path` in the chat):
//! read before anything is stored, checked against the limits and the model, then
//! uploaded into the conversation and sent with the message.

use std::path::{Path, PathBuf};

use smallebot_application::ConversationService;
use smallebot_core::entities::{Attachment, AttachmentFacts, AttachmentKind, Conversation};
use smallebot_core::ids::ConversationId;
use smallebot_core::rules::attachment::{AttachmentRefusal, check_image, clean_name, describe};
use smallebot_core::rules::attachment_text::facts_label;
use smallebot_core::rules::mcp_mentions::resource_mention;
use smallebot_core::rules::mentions::mentions;
use smallebot_core::rules::pasted_path::pasted_paths;

use crate::error::TerminalError;
use crate::regular_file::{ReadRefusal, read_head, read_regular};
use crate::user_path::user_path;

/// A file to attach, read whole.
pub struct FileToAttach {
    /// The name it is attached under (the path's last component).
    name: String,
    /// Its content.
    content: Vec<u8>,
    /// What it is (sniffed from the content).
    facts: AttachmentFacts,
}

impl FileToAttach {
    /// Its label: `[image: shot.png 1280×720]`, `[file: notes.txt 9 B]`.
    pub fn label(&self) -> String {
        facts_label(&self.facts)
    }
}

/// Reads every file of `paths` (relative ones from the working directory): only
/// regular files, each of at most `max_file_bytes` (agent.json
/// `attachments.maxFileBytes`, checked on the open file before it is read), and an
/// image only when it is one ([`check_image`]).
///
/// # Errors
/// For the first path that cannot be read or is refused:
/// [`TerminalError::AttachmentUnreadable`], [`TerminalError::AttachmentNotRegular`], or the
/// pipeline's refusal (too large, an image that is none).
pub fn read_files(
    paths: &[PathBuf],
    max_file_bytes: i64,
) -> Result<Vec<FileToAttach>, TerminalError> {
    paths
        .iter()
        .map(|path| read_file(path, max_file_bytes))
        .collect()
}

fn read_file(typed: &Path, max_file_bytes: i64) -> Result<FileToAttach, TerminalError> {
    let path = &user_path(typed);
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let limit = u64::try_from(max_file_bytes).unwrap_or(0);
    let content = read_regular(path, limit).map_err(|refusal| match refusal {
        ReadRefusal::NotRegular(what) => TerminalError::AttachmentNotRegular {
            path: path.to_path_buf(),
            what,
        },
        ReadRefusal::TooLarge(size) => AttachmentRefusal::FileTooLarge {
            name: clean_name(&name),
            size: i64::try_from(size).unwrap_or(i64::MAX),
            limit: max_file_bytes,
        }
        .into(),
        ReadRefusal::Io(source) => TerminalError::AttachmentUnreadable {
            path: path.to_path_buf(),
            source,
        },
    })?;
    FileToAttach::from_content(name, content)
}

impl FileToAttach {
    /// `content` attached as `name` (an MCP resource, a file read): an image only when
    /// it is one ([`check_image`]).
    ///
    /// # Errors
    /// The pipeline's refusal of an image that is none.
    pub fn from_content(name: String, content: Vec<u8>) -> Result<Self, TerminalError> {
        check_image(&name, &content).map_err(TerminalError::from)?;
        let facts = describe(&name, &content);
        Ok(Self {
            name,
            content,
            facts,
        })
    }
}

/// Checks `files` for a message of `conversation` (`None`: a new conversation), before
/// anything is stored: the limits of agent.json, and images only for a model that sees
/// them.
///
/// # Errors
/// The pipeline's refusal.
pub fn check(
    service: &ConversationService,
    conversation: Option<&Conversation>,
    files: &[&FileToAttach],
) -> Result<(), TerminalError> {
    let facts: Vec<AttachmentFacts> = files.iter().map(|file| file.facts.clone()).collect();
    Ok(service.check_files(conversation, &facts)?)
}

/// The `@path` mentions of a chat message that name files: every existing one, and
/// every path-like one (so that a missing `@notes.txt` is an error, not text); an
/// `@server:uri` of one of the MCP servers `servers` is a resource, not a path.
pub fn mentioned_paths(text: &str, servers: &[String]) -> Vec<PathBuf> {
    mentions(text)
        .into_iter()
        .filter(|m| resource_mention(m.path, servers).is_none())
        .filter(|m| m.path_like || Path::new(m.path).is_file())
        .map(|m| PathBuf::from(m.path))
        .collect()
}

/// Bytes read from a pasted path to tell whether it is an image (the header, and a
/// JPEG's metadata before its size).
const SNIFFED_BYTES: u64 = 256 * 1024;

/// The paths of a chat line that is only paths of existing image files (dragged onto
/// the terminal from a file manager, see [`pasted_paths`]); `None` for any other line,
/// which is sent as text. Only the head of each file is read here.
pub fn pasted_images(line: &str) -> Option<Vec<PathBuf>> {
    let home = std::env::var("HOME").ok();
    let paths: Vec<PathBuf> = pasted_paths(line, home.as_deref())?
        .into_iter()
        .map(PathBuf::from)
        .collect();
    paths.iter().all(|path| is_image(path)).then_some(paths)
}

/// Whether `path` is a regular file whose head sniffs as an image: opened without
/// blocking, as an attached file is ([`read_head`]); a FIFO, a device or a directory
/// is none.
fn is_image(path: &Path) -> bool {
    read_head(path, SNIFFED_BYTES)
        .is_ok_and(|head| describe("", &head).kind == AttachmentKind::Image)
}

/// Uploads `files` into `conversation_id`, in order, and returns them.
///
/// # Errors
/// The pipeline's refusal or a storage failure.
pub async fn upload(
    service: &ConversationService,
    conversation_id: ConversationId,
    files: Vec<FileToAttach>,
) -> Result<Vec<Attachment>, TerminalError> {
    let mut attached = Vec::with_capacity(files.len());
    for file in files {
        let attachment = service
            .attach(conversation_id, &file.name, file.content)
            .await?;
        attached.push(attachment);
    }
    Ok(attached)
}
