//! A user message's attachments as parts of its request message: an image as a `data:`
//! URL, a text file inlined within its token budget (and saved whole in the workspace
//! when cut), any other file saved in the workspace and named by its path, so the
//! model's tools can read it. Counting uses the same text, so the stored counts, the
//! estimate and the request agree.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use smallebot_application::ports::{AttachmentContents, ModelPart};
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

/// Writes attachments' parts; remembers where each file was saved.
#[derive(Debug, Default)]
pub(crate) struct AttachmentWriter {
    /// The workspace files are saved in (`None`: they are not saved, and the message
    /// says so).
    workspace: Option<PathBuf>,
    /// The most tokens of a text file inlined.
    max_inline_tokens: i64,
    /// Where each attachment was saved, relative to the workspace.
    saved: Mutex<HashMap<AttachmentId, String>>,
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
    /// path relative to the workspace; why not, when it cannot.
    fn save(&self, attachment: &Attachment, content: &[u8]) -> Result<String, String> {
        let Some(workspace) = &self.workspace else {
            return Err("no workspace is configured".to_owned());
        };
        let known = self
            .saved
            .lock()
            .ok()
            .and_then(|saved| saved.get(&attachment.id).cloned());
        if let Some(path) = known
            && holds(&workspace.join(&path), content)
        {
            return Ok(path);
        }
        let path = save_in(workspace, &attachment.name, content)?;
        if let Ok(mut saved) = self.saved.lock() {
            saved.insert(attachment.id, path.clone());
        }
        Ok(path)
    }
}

/// Whether the file at `path` holds exactly `content`.
fn holds(path: &Path, content: &[u8]) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == content.len() as u64)
        && std::fs::read(path).is_ok_and(|found| found == content)
}

/// Writes `content` at the first free candidate path for `name` in `workspace`, never
/// over a different file; an existing file with the same content is taken as is.
fn save_in(workspace: &Path, name: &str, content: &[u8]) -> Result<String, String> {
    for candidate in workspace_candidates(name).take(MAX_CANDIDATES) {
        let path = workspace.join(&candidate);
        if holds(&path, content) {
            return Ok(candidate);
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path);
        match file {
            Ok(mut file) => {
                let written = file.write_all(content).and_then(|()| file.sync_all());
                if let Err(error) = written {
                    // Leave no half-written file behind.
                    let _ = std::fs::remove_file(&path);
                    return Err(error.to_string());
                }
                return Ok(candidate);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error.to_string()),
        }
    }
    Err(format!("no free name for {name} in the workspace"))
}
