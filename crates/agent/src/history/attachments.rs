//! A user message's attachments as parts of its request message: an image as a `data:`
//! URL, a text file inlined within its token budget (and saved whole in the workspace
//! when cut), any other file saved in the workspace and named by its path, so the
//! model's tools can read it. Counting uses the same text, so the stored counts, the
//! estimate and the request agree.
//!
//! The workspace is a tree the model's commands change, and this is the host writing
//! into it: every save goes through [`smallebot_confined::Root`] with
//! [`Links::Refuse`] — no link is followed, anywhere on the path — so a command that
//! turns `attachments` into a link to another user's workspace or to the home gets
//! nothing written there; the model is told the file could not be saved, and why.
//! A file is saved only at a free name or over the same content, and "the same content"
//! is read only from a regular file with one name reached without links (a link or a
//! hard link at the name is taken as a different file), so the check cannot probe a
//! file the user cannot read. A saved copy that went missing is written again at most
//! once per attachment.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use smallebot_application::ports::{AttachmentContents, ModelPart};
use smallebot_confined::{ConfinedError, Links, Root};
use smallebot_core::entities::{Attachment, AttachmentKind, ImageSize};
use smallebot_core::ids::AttachmentId;
use smallebot_core::rules::attachment::image_tokens;
use smallebot_core::rules::attachment_text::{
    TextCut, cut_to_budget, inline_part, saved_file_line, unsaved_file_line, unseen_image_line,
    workspace_candidates,
};

use super::tokens::{CountTokens, count};

/// The most names tried in the workspace folder before a file is given up.
const MAX_CANDIDATES: usize = 1000;

/// Where an attachment's copy was saved, and whether it was written again already.
#[derive(Debug, Clone)]
struct SavedCopy {
    /// The path, relative to the workspace.
    path: String,
    /// Whether the copy went missing once and was written again.
    rewritten: bool,
}

/// Writes attachments' parts; remembers where each file was saved.
#[derive(Debug, Default)]
pub(crate) struct AttachmentWriter {
    /// The workspace files are saved in (`None`: they are not saved, and the message
    /// says so).
    workspace: Option<PathBuf>,
    /// The most tokens of a text file inlined.
    max_inline_tokens: i64,
    /// Where each attachment was saved, relative to the workspace.
    saved: Mutex<HashMap<AttachmentId, SavedCopy>>,
    /// Where each text file is cut, in bytes, once counted exactly (the cut costs a
    /// few counts of the text, and every request carries it again).
    cuts: Mutex<HashMap<AttachmentId, usize>>,
}

impl AttachmentWriter {
    /// A writer saving into `workspace`, inlining at most `max_inline_tokens` of a text.
    pub(crate) fn new(workspace: Option<PathBuf>, max_inline_tokens: i64) -> Self {
        Self {
            workspace,
            max_inline_tokens,
            saved: Mutex::default(),
            cuts: Mutex::default(),
        }
    }

    /// The parts `attachments` become, in order; for a model that does not see images
    /// (`sees_images` false), an image is saved in the workspace and named like a file.
    pub(crate) fn parts(
        &self,
        attachments: &[Attachment],
        contents: &AttachmentContents,
        sees_images: bool,
        counter: &impl CountTokens,
    ) -> Vec<ModelPart> {
        attachments
            .iter()
            .map(|a| {
                let content = contents.get(&a.id).map(AsRef::as_ref);
                self.part(a, content, sees_images, counter)
            })
            .collect()
    }

    fn part(
        &self,
        attachment: &Attachment,
        content: Option<&[u8]>,
        sees_images: bool,
        counter: &impl CountTokens,
    ) -> ModelPart {
        let Some(content) = content else {
            let text = unsaved_file_line(
                &attachment.name,
                attachment.size,
                &attachment.media_type,
                "its content is no longer stored",
            );
            return ModelPart::Text { text };
        };
        match attachment.kind {
            AttachmentKind::Image if sees_images => ModelPart::Image {
                data_url: format!(
                    "data:{};base64,{}",
                    attachment.media_type,
                    STANDARD.encode(content)
                ),
            },
            AttachmentKind::Text => {
                let text = String::from_utf8_lossy(content);
                let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
                let cut = self.cut(attachment, text, counter);
                let saved_at = if cut.is_cut() {
                    self.save(attachment, content)
                } else {
                    Ok(String::new())
                };
                let text = match saved_at {
                    Ok(path) => inline_part(
                        &attachment.name,
                        attachment.size,
                        &cut,
                        self.max_inline_tokens,
                        &path,
                    ),
                    Err(why) => {
                        let part = inline_part(
                            &attachment.name,
                            attachment.size,
                            &cut,
                            self.max_inline_tokens,
                            "",
                        );
                        format!(
                            "{part}\n(the whole file could not be saved in the workspace: {why})"
                        )
                    }
                };
                ModelPart::Text { text }
            }
            // Any other file, or an image the model cannot see: saved and named.
            kind @ (AttachmentKind::File | AttachmentKind::Image) => {
                let (name, size, media_type) =
                    (&attachment.name, attachment.size, &attachment.media_type);
                let line = match kind {
                    AttachmentKind::Image => unseen_image_line,
                    _ => saved_file_line,
                };
                let text = match self.save(attachment, content) {
                    Ok(path) => line(name, size, media_type, &path),
                    Err(why) => unsaved_file_line(name, size, media_type, &why),
                };
                ModelPart::Text { text }
            }
        }
    }

    /// What of `attachment`'s `text` is inlined (remembered once counted exactly).
    fn cut<'t>(
        &self,
        attachment: &Attachment,
        text: &'t str,
        counter: &impl CountTokens,
    ) -> TextCut<'t> {
        let known = self
            .cuts
            .lock()
            .ok()
            .and_then(|cuts| cuts.get(&attachment.id).copied());
        if let Some(cut) = known.and_then(|end| TextCut::keeping(text, end)) {
            return cut;
        }
        // Read before counting: once ready, every count below is exact.
        let exact = counter.exact();
        let cut = cut_to_budget(text, self.max_inline_tokens, &|start| count(counter, start));
        if exact && let Ok(mut cuts) = self.cuts.lock() {
            cuts.insert(attachment.id, cut.kept.len());
        }
        cut
    }

    /// Tokens `attachment` adds to its message, counted over the text it becomes
    /// (`text`: a text file's content). A path is counted as it is first chosen.
    pub(crate) fn tokens(
        &self,
        attachment: &Attachment,
        text: Option<&str>,
        counter: &impl CountTokens,
    ) -> i64 {
        let nominal = workspace_candidates(&attachment.name)
            .next()
            .unwrap_or_default();
        let (name, size, media_type) = (&attachment.name, attachment.size, &attachment.media_type);
        match (attachment.kind, text) {
            (AttachmentKind::Image, _) => {
                image_tokens(attachment.image_size.unwrap_or(ImageSize {
                    width: 0,
                    height: 0,
                }))
            }
            (AttachmentKind::Text, Some(text)) => {
                let text = text.strip_prefix('\u{feff}').unwrap_or(text);
                let cut = self.cut(attachment, text, counter);
                let path = if cut.is_cut() { nominal.as_str() } else { "" };
                count(
                    counter,
                    &inline_part(name, size, &cut, self.max_inline_tokens, path),
                )
            }
            (AttachmentKind::Text | AttachmentKind::File, _) => {
                count(counter, &saved_file_line(name, size, media_type, &nominal))
            }
        }
    }

    /// Saves `content` into the workspace at the first free path for the
    /// attachment's name (or the one already holding this content), and returns that
    /// path relative to the workspace; why not, when it cannot. A copy saved before is
    /// taken when it is still there, written again once when it is gone, and after
    /// that no more.
    fn save(&self, attachment: &Attachment, content: &[u8]) -> Result<String, String> {
        let Some(workspace) = &self.workspace else {
            return Err("no workspace is configured".to_owned());
        };
        let root = Root::create(workspace, Links::Refuse).map_err(|e| e.to_string())?;
        let known = self
            .saved
            .lock()
            .ok()
            .and_then(|saved| saved.get(&attachment.id).cloned());
        if let Some(copy) = &known {
            if holds(&root, &copy.path, content) {
                return Ok(copy.path.clone());
            }
            if copy.rewritten {
                return Err(format!(
                    "its copy at {} was removed after it had been saved again once, so it \
                     is not saved again",
                    copy.path
                ));
            }
        }
        let path = save_in(&root, &attachment.name, content)?;
        if let Ok(mut saved) = self.saved.lock() {
            let copy = SavedCopy {
                path: path.clone(),
                rewritten: known.is_some(),
            };
            saved.insert(attachment.id, copy);
        }
        Ok(path)
    }
}

/// Whether `path` (relative to `root`) is a regular file with one name, reached
/// without any link, holding exactly `content`. Anything else — a link, a hard link,
/// a special file — is never read.
fn holds(root: &Root, path: &str, content: &[u8]) -> bool {
    let Ok((file, metadata)) = root.open_read(path) else {
        return false;
    };
    if metadata.links != 1 || metadata.len != content.len() as u64 {
        return false;
    }
    let mut found = Vec::with_capacity(content.len());
    file.take(content.len() as u64 + 1)
        .read_to_end(&mut found)
        .is_ok_and(|_| found == content)
}

/// Writes `content` at the first free candidate path for `name` beneath `root`, never
/// over anything (a file, a link), never through a link; an existing file with the same
/// content is taken as is.
fn save_in(root: &Root, name: &str, content: &[u8]) -> Result<String, String> {
    for candidate in workspace_candidates(name).take(MAX_CANDIDATES) {
        if holds(root, &candidate, content) {
            return Ok(candidate);
        }
        if let Some((parent, _)) = candidate.rsplit_once('/') {
            root.create_dirs(parent).map_err(|e| e.to_string())?;
        }
        match root.create_new(&candidate) {
            Ok(mut file) => {
                let written = file.write_all(content).and_then(|()| file.sync_all());
                if let Err(error) = written {
                    // Leave no half-written file behind.
                    let _ = root.remove_file(&candidate);
                    return Err(format!("writing {candidate} failed ({error})"));
                }
                return Ok(candidate);
            }
            Err(ConfinedError::Exists { .. }) => {}
            Err(error) => return Err(error.to_string()),
        }
    }
    Err(format!("no free name for {name} in the workspace"))
}

#[cfg(all(test, unix))]
#[path = "attachments_tests.rs"]
mod tests;
