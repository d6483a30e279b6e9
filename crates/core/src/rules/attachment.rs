//! What an attached file is, decided from its bytes: its kind, media type, image size
//! and digest ([`describe`]); the limits a file and a message's files must keep
//! ([`AttachmentLimits`]); and how sizes are written for people ([`human_size`]).

use sha2::{Digest, Sha256};

use crate::entities::{AttachmentFacts, AttachmentKind, ImageSize};
use crate::rules::image_header::{ImageProblem, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, inspect_image};
use crate::rules::title_text::clean_title;

/// The longest stored file name, in bytes (longer names are cut at a character
/// boundary, the extension kept when it is short).
pub const MAX_NAME_BYTES: usize = 200;

/// The name an attachment without a usable name gets.
pub const FALLBACK_NAME: &str = "attachment";

/// Media types of text files, by extension (lowercase, without the dot). Text with any
/// other extension is `text/plain`.
const TEXT_TYPES: &[(&str, &str)] = &[
    ("csv", "text/csv"),
    ("tsv", "text/tab-separated-values"),
    ("json", "application/json"),
    ("md", "text/markdown"),
    ("markdown", "text/markdown"),
    ("html", "text/html"),
    ("htm", "text/html"),
    ("xml", "application/xml"),
    ("svg", "image/svg+xml"),
    ("yaml", "application/yaml"),
    ("yml", "application/yaml"),
    ("toml", "application/toml"),
];

/// The facts of a file named `name` (as the client gave it) with `content`: the kind
/// and media type are sniffed from the content — a PNG called `notes.txt` is an image,
/// a text called `photo.png` is text.
///
/// - a PNG, JPEG, GIF or WebP whose header decodes and whose size is within the limits
///   ([`crate::rules::image_header`]) is an [`AttachmentKind::Image`];
/// - valid UTF-8 (a byte-order mark allowed) without NUL bytes is
///   [`AttachmentKind::Text`], its media type taken from the extension;
/// - anything else is an [`AttachmentKind::File`], with the type its magic number
///   names, or `application/octet-stream`; a binary format's magic number (`%PDF`,
///   a ZIP header) makes a file a `File` even when its bytes decode as UTF-8.
///
/// A file that starts as an image and is none is described as a `File` here; before
/// it is stored, [`check_image`] refuses it.
#[must_use]
pub fn describe(name: &str, content: &[u8]) -> AttachmentFacts {
    let name = clean_name(name);
    let found = infer::get(content);
    // A magic number of a binary format (PDF, ZIP, …) wins over "it decodes as UTF-8".
    let binary = found.filter(|found| found.matcher_type() != infer::MatcherType::Text);
    let image = match inspect_image(content) {
        Some((format, Ok(size))) => Some((format, size)),
        _ => None,
    };
    let (kind, media_type) = match (image, binary) {
        (Some((format, _)), _) => (AttachmentKind::Image, format.media_type().to_owned()),
        (None, Some(found)) => (AttachmentKind::File, found.mime_type().to_owned()),
        _ if is_text(content) => (AttachmentKind::Text, text_type(&name).to_owned()),
        _ => (AttachmentKind::File, "application/octet-stream".to_owned()),
    };
    AttachmentFacts {
        name,
        media_type,
        kind,
        size: i64::try_from(content.len()).unwrap_or(i64::MAX),
        sha256: sha256_hex(content),
        image_size: image.map(|(_, size)| size),
    }
}

/// Checks that a file named `name` that starts as a PNG, JPEG, GIF or WebP is one: its
/// header decodes, and the size it states is within [`MAX_IMAGE_SIDE`] and
/// [`MAX_IMAGE_PIXELS`]. Any other file passes.
///
/// # Errors
/// [`AttachmentRefusal::ImageUndecodable`], [`AttachmentRefusal::ImageTooLarge`].
pub fn check_image(name: &str, content: &[u8]) -> Result<(), AttachmentRefusal> {
    let Some((format, Err(problem))) = inspect_image(content) else {
        return Ok(());
    };
    let name = clean_name(name);
    let format = format.name();
    Err(match problem {
        ImageProblem::Undecodable { reason } => AttachmentRefusal::ImageUndecodable {
            name,
            format,
            reason,
        },
        ImageProblem::Oversized(size) => AttachmentRefusal::ImageTooLarge {
            name,
            format,
            width: size.width,
            height: size.height,
        },
    })
}

/// Whether `content` is text: valid UTF-8 without NUL bytes.
fn is_text(content: &[u8]) -> bool {
    !content.contains(&0) && std::str::from_utf8(content).is_ok()
}

/// The media type of a text file named `name`.
fn text_type(name: &str) -> &'static str {
    let extension = name
        .rsplit_once('.')
        .map(|(_, ext)| ext.to_ascii_lowercase())
        .unwrap_or_default();
    TEXT_TYPES
        .iter()
        .find(|(ext, _)| *ext == extension)
        .map_or("text/plain", |(_, mime)| mime)
}

/// Lowercase hexadecimal SHA-256 of `content`.
#[must_use]
pub fn sha256_hex(content: &[u8]) -> String {
    Sha256::digest(content)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// A client's file name as it may be stored and shown: the last path component only
/// (`/` and `\` both separate), control characters and bidirectional overrides taken
/// out as in titles, at most [`MAX_NAME_BYTES`] bytes; [`FALLBACK_NAME`] when nothing
/// is left (or the name was `.` or `..`).
#[must_use]
pub fn clean_name(name: &str) -> String {
    let last = name.rsplit(['/', '\\']).next().unwrap_or_default();
    let cleaned = clean_title(last);
    if cleaned.is_empty() || cleaned == "." || cleaned == ".." {
        return FALLBACK_NAME.to_owned();
    }
    if cleaned.len() <= MAX_NAME_BYTES {
        return cleaned;
    }
    // Keep a short extension: `very-long….csv`.
    let extension = cleaned
        .rsplit_once('.')
        .map(|(_, ext)| ext)
        .filter(|ext| ext.len() <= 10)
        .map(|ext| format!(".{ext}"))
        .unwrap_or_default();
    let mut stem_end = MAX_NAME_BYTES - extension.len() - '…'.len_utf8();
    while !cleaned.is_char_boundary(stem_end) {
        stem_end -= 1;
    }
    format!("{}…{extension}", &cleaned[..stem_end])
}

/// The tokens an image costs a model, by OpenAI's published formula for high detail:
/// the image is scaled to fit within 2048×2048, then so that its shorter side is at
/// most 768; each 512×512 tile costs 170 tokens, plus 85 for the image.
#[must_use]
pub fn image_tokens(size: ImageSize) -> i64 {
    const TILE: f64 = 512.0;
    let (mut width, mut height) = (f64::from(size.width), f64::from(size.height));
    if width <= 0.0 || height <= 0.0 {
        return 85;
    }
    let fit = (2048.0 / width.max(height)).min(1.0);
    width *= fit;
    height *= fit;
    let shorter = (768.0 / width.min(height)).min(1.0);
    width *= shorter;
    height *= shorter;
    // Both are at most 2048 here, so the tile counts are small whole numbers.
    #[allow(clippy::cast_possible_truncation)]
    let tiles = ((width / TILE).ceil() as i64) * ((height / TILE).ceil() as i64);
    170 * tiles + 85
}

/// The bounds attachments keep (agent.json `attachments`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AttachmentLimits {
    /// The largest file, in bytes.
    pub max_file_bytes: i64,
    /// The largest total of one message's files, in bytes.
    pub max_message_bytes: i64,
    /// The most tokens of one text attachment inlined into the message; the rest is
    /// cut with a marker that says the whole file is in the workspace.
    pub max_inline_tokens: i64,
}

/// Default of [`AttachmentLimits::max_file_bytes`]: 20 MiB.
pub const DEFAULT_MAX_FILE_BYTES: i64 = 20 * 1024 * 1024;
/// Default of [`AttachmentLimits::max_message_bytes`]: 50 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: i64 = 50 * 1024 * 1024;
/// Default of [`AttachmentLimits::max_inline_tokens`].
pub const DEFAULT_MAX_INLINE_TOKENS: i64 = 8_000;

impl Default for AttachmentLimits {
    fn default() -> Self {
        Self {
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_inline_tokens: DEFAULT_MAX_INLINE_TOKENS,
        }
    }
}

/// Why an attachment or a message's attachments were refused; nothing is stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttachmentRefusal {
    /// One file is over the per-file limit.
    #[error(
        "'{name}' is {} — over the limit of {} per file (agent.json attachments.maxFileBytes)",
        human_size(*size),
        human_size(*limit)
    )]
    FileTooLarge {
        /// The file.
        name: String,
        /// Its size in bytes.
        size: i64,
        /// The limit in bytes.
        limit: i64,
    },
    /// A message's files together are over the per-message limit.
    #[error(
        "the attached files total {} — over the limit of {} per message \
         (agent.json attachments.maxMessageBytes)",
        human_size(*total),
        human_size(*limit)
    )]
    MessageTooLarge {
        /// The total in bytes.
        total: i64,
        /// The limit in bytes.
        limit: i64,
    },
    /// A file starts as an image (its format's signature) but its header does not
    /// decode as that format.
    #[error(
        "'{name}' starts as a {format} image but is not one: its header does not decode \
         ({reason}). Attach the image again from its source, or put it in an archive to \
         send its bytes as they are"
    )]
    ImageUndecodable {
        /// The file.
        name: String,
        /// The format it claims: `PNG`, `JPEG`, `GIF`, `WebP`.
        format: &'static str,
        /// The decoder's words.
        reason: String,
    },
    /// An image states a size beyond the limits (or no pixels).
    #[error(
        "'{name}' is a {format} image stating {width}×{height} pixels: an image may have \
         1 to {MAX_IMAGE_SIDE} pixels a side and {} megapixels in all. Scale it down and \
         attach it again",
        MAX_IMAGE_PIXELS / 1_000_000
    )]
    ImageTooLarge {
        /// The file.
        name: String,
        /// Its format.
        format: &'static str,
        /// The width it states.
        width: u32,
        /// The height it states.
        height: u32,
    },
}

impl AttachmentRefusal {
    /// Whether it refuses what a file is (an image that is none, or of an absurd
    /// size) rather than how many bytes it has.
    #[must_use]
    pub fn is_about_content(&self) -> bool {
        matches!(
            self,
            Self::ImageUndecodable { .. } | Self::ImageTooLarge { .. }
        )
    }
}

impl AttachmentLimits {
    /// Checks one file's size.
    ///
    /// # Errors
    /// [`AttachmentRefusal::FileTooLarge`] over `max_file_bytes`.
    pub fn check_file(&self, name: &str, size: i64) -> Result<(), AttachmentRefusal> {
        if size > self.max_file_bytes {
            return Err(AttachmentRefusal::FileTooLarge {
                name: name.to_owned(),
                size,
                limit: self.max_file_bytes,
            });
        }
        Ok(())
    }

    /// Checks the sizes of one message's files, each and together.
    ///
    /// # Errors
    /// The first file over `max_file_bytes`, else the total over `max_message_bytes`.
    pub fn check_message<'a>(
        &self,
        files: impl IntoIterator<Item = (&'a str, i64)>,
    ) -> Result<(), AttachmentRefusal> {
        let mut total = 0_i64;
        for (name, size) in files {
            self.check_file(name, size)?;
            total = total.saturating_add(size);
        }
        if total > self.max_message_bytes {
            return Err(AttachmentRefusal::MessageTooLarge {
                total,
                limit: self.max_message_bytes,
            });
        }
        Ok(())
    }
}

/// A byte count for people: `512 B`, `12 KB`, `3.4 MB`, `20 MB` (powers of 1024, one
/// decimal below ten).
#[must_use]
pub fn human_size(bytes: i64) -> String {
    const UNITS: [&str; 4] = ["KB", "MB", "GB", "TB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    // Sizes are far below 2^52 bytes, so the conversion is exact enough for display.
    #[allow(clippy::cast_precision_loss)]
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if value < 10.0 && value.fract() >= 0.05 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.0} {}", UNITS[unit])
    }
}

#[cfg(test)]
#[path = "attachment_tests.rs"]
mod tests;
