//! How an attachment is written for the model and for people: the part of an inlined
//! text file (its header, the text cut to a token budget, the marker saying what was
//! left out and where the whole file is), the line naming a file saved in the
//! workspace, the free names such a file may take there, and the short label
//! (`[image: error.png 1280×720]`, `[file: spec.pdf 12 KB]`) transcripts and summary
//! requests show instead of the content.

use crate::entities::{Attachment, AttachmentFacts, AttachmentKind, ImageSize};
use crate::rules::attachment::human_size;

/// The workspace folder attached files are saved in (relative to the workspace).
pub const WORKSPACE_FOLDER: &str = "attachments";

/// How many bytes one token may cover at most when looking for the cut: the cut is
/// searched for only in the first `budget × this` bytes.
const MAX_BYTES_PER_TOKEN: usize = 32;

/// What of a text fits its token budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextCut<'a> {
    /// The text kept (the whole text when it fits).
    pub kept: &'a str,
    /// Lines left out (a line cut in the middle counts).
    pub left_out_lines: usize,
    /// Bytes left out.
    pub left_out_bytes: usize,
}

impl<'a> TextCut<'a> {
    /// The cut of `text` that keeps its first `end` bytes (`None` when `end` is past
    /// the end or not at a character boundary).
    #[must_use]
    pub fn keeping(text: &'a str, end: usize) -> Option<Self> {
        let kept = text.get(..end)?;
        let rest = &text[end..];
        Some(Self {
            kept,
            left_out_lines: rest.lines().count(),
            left_out_bytes: rest.len(),
        })
    }

    /// Whether anything was left out.
    #[must_use]
    pub fn is_cut(&self) -> bool {
        self.left_out_bytes > 0
    }
}

/// The longest start of `text` that costs at most `max_tokens` by `count`, ended at a
/// line break when one is in the kept part (else at a character boundary). `count` is
/// the tokenizer's count; it is called a few times on starts of the text, never on a
/// start longer than `max_tokens × 32` bytes (a longer text is cut there at the latest).
#[must_use]
pub fn cut_to_budget<'a>(
    text: &'a str,
    max_tokens: i64,
    count: &dyn Fn(&str) -> i64,
) -> TextCut<'a> {
    let budget = usize::try_from(max_tokens.max(0)).unwrap_or(usize::MAX);
    let window = floor_boundary(text, budget.saturating_mul(MAX_BYTES_PER_TOKEN));
    if window == text.len() && count(text) <= max_tokens {
        return TextCut {
            kept: text,
            left_out_lines: 0,
            left_out_bytes: 0,
        };
    }
    // The longest fitting start, by bisection over character boundaries: `low` fits,
    // `high` does not (counts grow with the length of the start).
    let (mut low, mut high) = if count(&text[..window]) <= max_tokens {
        (window, window)
    } else {
        (0, window)
    };
    loop {
        let mut middle = floor_boundary(text, low + (high - low) / 2);
        if middle <= low {
            middle = next_boundary(text, low);
        }
        if middle >= high {
            break;
        }
        if count(&text[..middle]) <= max_tokens {
            low = middle;
        } else {
            high = middle;
        }
    }
    let end = text[..low].rfind('\n').map_or(low, |newline| newline + 1);
    TextCut::keeping(text, end).unwrap_or(TextCut {
        kept: "",
        left_out_lines: text.lines().count(),
        left_out_bytes: text.len(),
    })
}

/// The largest character boundary of `text` at or below `index`.
fn floor_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// The first character boundary of `text` after `index` (its length at the end).
fn next_boundary(text: &str, index: usize) -> usize {
    let mut index = index + 1;
    while index < text.len() && !text.is_char_boundary(index) {
        index += 1;
    }
    index.min(text.len())
}

/// A fence longer than every run of backticks in `text` (at least three).
fn fence_for(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// The text part a text attachment becomes: `Attached file NAME (SIZE):`, the kept
/// text in a fence, and when it was cut a marker saying how much was left out of the
/// budget and that the whole file is in the workspace at `saved_at` (an empty
/// `saved_at`: it could not be saved, and the marker does not claim it was).
#[must_use]
pub fn inline_part(
    name: &str,
    size: i64,
    cut: &TextCut<'_>,
    max_tokens: i64,
    saved_at: &str,
) -> String {
    let fence = fence_for(cut.kept);
    let kept = cut.kept.strip_suffix('\n').unwrap_or(cut.kept);
    let mut part = format!(
        "Attached file {name} ({}):\n{fence}\n{kept}\n{fence}",
        human_size(size)
    );
    if cut.is_cut() {
        let lines = match cut.left_out_lines {
            1 => "1 more line".to_owned(),
            n => format!("{n} more lines"),
        };
        let left_out = human_size(i64::try_from(cut.left_out_bytes).unwrap_or(i64::MAX));
        part.push_str(&format!(
            "\n[… {lines} ({left_out}) left out to keep within {max_tokens} tokens"
        ));
        if !saved_at.is_empty() {
            part.push_str(&format!(
                "; the whole file is in the workspace at {saved_at}"
            ));
        }
        part.push(']');
    }
    part
}

/// The line a file that is not inlined becomes: where in the workspace it is, so the
/// model's tools can read it.
#[must_use]
pub fn saved_file_line(name: &str, size: i64, media_type: &str, saved_at: &str) -> String {
    format!(
        "Attached file {name} ({}, {media_type}) is saved in the workspace at {saved_at}; \
         use your tools to read it.",
        human_size(size)
    )
}

/// The line an image becomes for a model that does not see images (the conversation
/// was switched to it after the image was sent): where in the workspace it is, and
/// why it is not shown.
#[must_use]
pub fn unseen_image_line(name: &str, size: i64, media_type: &str, saved_at: &str) -> String {
    format!(
        "Attached image {name} ({}, {media_type}) is saved in the workspace at {saved_at}; \
         it is not shown because the model in use does not see images.",
        human_size(size)
    )
}

/// The line an attachment that could not be saved becomes (the workspace is not
/// writable, say): named, so the model knows it was given.
#[must_use]
pub fn unsaved_file_line(name: &str, size: i64, media_type: &str, why: &str) -> String {
    format!(
        "Attached file {name} ({}, {media_type}) could not be saved in the workspace \
         ({why}); it is not available to your tools.",
        human_size(size)
    )
}

/// The workspace paths (`/`-separated, relative to the workspace) a file called `name`
/// may be saved at, in order of preference: `attachments/NAME`, then
/// `attachments/STEM-2.EXT`, `attachments/STEM-3.EXT`, … The caller takes the first
/// that is free or already holds the same content, so a different file is never
/// overwritten and the same file is saved once.
pub fn workspace_candidates(name: &str) -> impl Iterator<Item = String> + '_ {
    let (stem, extension) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, format!(".{ext}")),
        _ => (name, String::new()),
    };
    std::iter::once(format!("{WORKSPACE_FOLDER}/{name}"))
        .chain((2_u32..).map(move |n| format!("{WORKSPACE_FOLDER}/{stem}-{n}{extension}")))
}

/// The label transcripts and summary requests show for an attachment instead of its
/// content: `[image: NAME W×H]` (or `[image: NAME SIZE]` without a known size),
/// `[file: NAME SIZE]` for text and other files.
#[must_use]
pub fn attachment_label(attachment: &Attachment) -> String {
    label(
        &attachment.name,
        attachment.kind,
        attachment.image_size,
        attachment.size,
    )
}

/// [`attachment_label`] of a file read but not stored yet (the chat's `/attach`).
#[must_use]
pub fn facts_label(facts: &AttachmentFacts) -> String {
    label(&facts.name, facts.kind, facts.image_size, facts.size)
}

fn label(name: &str, kind: AttachmentKind, image_size: Option<ImageSize>, size: i64) -> String {
    match (kind, image_size) {
        (AttachmentKind::Image, Some(pixels)) => {
            format!("[image: {name} {}×{}]", pixels.width, pixels.height)
        }
        (AttachmentKind::Image, None) => format!("[image: {name} {}]", human_size(size)),
        (AttachmentKind::Text | AttachmentKind::File, _) => {
            format!("[file: {name} {}]", human_size(size))
        }
    }
}

#[cfg(test)]
#[path = "attachment_text_tests.rs"]
mod tests;
