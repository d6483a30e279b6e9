//! Files a person attaches on the terminal (`run --attach FILE`, `@path` in the chat):
//! read before anything is stored, checked against the limits and the model, then
//! uploaded into the conversation and sent with the message.

use std::io::Read;
use std::path::{Path, PathBuf};

use smallebot_application::ConversationService;
use smallebot_core::entities::{Attachment, AttachmentFacts, AttachmentKind, Conversation};
use smallebot_core::ids::ConversationId;
use smallebot_core::rules::attachment::describe;
use smallebot_core::rules::attachment_text::facts_label;
use smallebot_core::rules::mentions::mentions;
use smallebot_core::rules::pasted_path::pasted_paths;

use crate::error::HostError;
use crate::user_path::user_path;

/// A file to attach, read whole.
pub(crate) struct FileToAttach {
    /// The name it is attached under (the path's last component).
    name: String,
    /// Its content.
    content: Vec<u8>,
    /// What it is (sniffed from the content).
    facts: AttachmentFacts,
}

impl FileToAttach {
    /// Its label: `[image: shot.png 1280×720]`, `[file: notes.txt 9 B]`.
    pub(crate) fn label(&self) -> String {
        facts_label(&self.facts)
    }
}

/// Reads every file of `paths` (relative ones from the working directory).
///
/// # Errors
/// [`HostError::AttachmentUnreadable`] for the first path that cannot be read.
pub(crate) fn read_files(paths: &[PathBuf]) -> Result<Vec<FileToAttach>, HostError> {
    paths.iter().map(|path| read_file(path)).collect()
}

fn read_file(typed: &Path) -> Result<FileToAttach, HostError> {
    let path = &user_path(typed);
    let unreadable = |source| HostError::AttachmentUnreadable {
        path: path.to_path_buf(),
        source,
    };
    let content = std::fs::read(path).map_err(unreadable)?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let facts = describe(&name, &content);
    Ok(FileToAttach {
        name,
        content,
        facts,
    })
}

/// Checks `files` for a message of `conversation` (`None`: a new conversation), before
/// anything is stored: the limits of agent.json, and images only for a model that sees
/// them.
///
/// # Errors
/// The pipeline's refusal.
pub(crate) fn check(
    service: &ConversationService,
    conversation: Option<&Conversation>,
    files: &[&FileToAttach],
) -> Result<(), HostError> {
    let facts: Vec<AttachmentFacts> = files.iter().map(|file| file.facts.clone()).collect();
    Ok(service.check_files(conversation, &facts)?)
}

/// The `@path` mentions of a chat message that name files: every existing one, and
/// every path-like one (so that a missing `@notes.txt` is an error, not text).
pub(crate) fn mentioned_paths(text: &str) -> Vec<PathBuf> {
    mentions(text)
        .into_iter()
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
pub(crate) fn pasted_images(line: &str) -> Option<Vec<PathBuf>> {
    let home = std::env::var("HOME").ok();
    let paths: Vec<PathBuf> = pasted_paths(line, home.as_deref())?
        .into_iter()
        .map(PathBuf::from)
        .collect();
    paths.iter().all(|path| is_image(path)).then_some(paths)
}

/// Whether `path` is a regular file whose content sniffs as an image.
fn is_image(path: &Path) -> bool {
    // Not a FIFO or a device: opening one could block or never end.
    if !path.is_file() {
        return false;
    }
    let mut head = Vec::new();
    let read =
        std::fs::File::open(path).and_then(|file| file.take(SNIFFED_BYTES).read_to_end(&mut head));
    read.is_ok() && describe("", &head).kind == AttachmentKind::Image
}

/// Uploads `files` into `conversation_id`, in order, and returns them.
///
/// # Errors
/// The pipeline's refusal or a storage failure.
pub(crate) async fn upload(
    service: &ConversationService,
    conversation_id: ConversationId,
    files: Vec<FileToAttach>,
) -> Result<Vec<Attachment>, HostError> {
    let mut attached = Vec::with_capacity(files.len());
    for file in files {
        let attachment = service
            .attach(conversation_id, &file.name, file.content)
            .await?;
        attached.push(attachment);
    }
    Ok(attached)
}
