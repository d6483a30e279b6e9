//! Whether a file that starts as an image is one: its header decoded by the format's
//! maintained decoder (`png`, `zune-jpeg`, `gif`, `image-webp`; headers only, never the
//! pixels), and the size it states held to [`MAX_IMAGE_SIDE`] and [`MAX_IMAGE_PIXELS`].
//!
//! A file claims a format by its whole signature: the 8 bytes of PNG, `FF D8 FF` of
//! JPEG, `GIF87a`/`GIF89a`, `RIFF····WEBP`. What is decoded for each:
//!
//! - PNG: every chunk up to the first `IDAT`, each with its CRC (`IHDR` first, with a
//!   valid size, depth and colour type);
//! - JPEG: every marker segment up to the start of scan, the frame (`SOF`) among them;
//! - GIF: the logical screen, its colour table, and the blocks up to the first
//!   image's descriptor (a GIF without an image is refused);
//! - WebP: the RIFF header and the `VP8 `, `VP8L` or `VP8X` chunk (with the chunks a
//!   `VP8X` file must carry).

use std::io::Cursor;

use crate::entities::ImageSize;

/// The most pixels an image may have on either side. An image stating more is
/// refused: no model takes it (they scale images down to 2048 pixels or fewer), and a
/// client decoding it would allocate gigabytes.
pub const MAX_IMAGE_SIDE: u32 = 16_384;

/// The most pixels an image may have in all: 100 megapixels (a 12 000 × 8 000 photo
/// fits).
pub const MAX_IMAGE_PIXELS: u64 = 100_000_000;

/// An image format a vision model is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// GIF.
    Gif,
    /// WebP.
    Webp,
}

impl ImageFormat {
    /// The format's name: `PNG`, `JPEG`, `GIF`, `WebP`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
            Self::Gif => "GIF",
            Self::Webp => "WebP",
        }
    }

    /// Its media type: `image/png`, ….
    #[must_use]
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Gif => "image/gif",
            Self::Webp => "image/webp",
        }
    }

    /// The format whose whole signature `content` starts with.
    #[must_use]
    pub fn claimed_by(content: &[u8]) -> Option<Self> {
        if content.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if content.starts_with(b"\xff\xd8\xff") {
            Some(Self::Jpeg)
        } else if content.starts_with(b"GIF87a") || content.starts_with(b"GIF89a") {
            Some(Self::Gif)
        } else if content.len() >= 12 && content.starts_with(b"RIFF") && &content[8..12] == b"WEBP"
        {
            Some(Self::Webp)
        } else {
            None
        }
    }
}

/// Why a file that starts as an image is not taken as one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageProblem {
    /// Its header does not decode as its format.
    Undecodable {
        /// The decoder's words.
        reason: String,
    },
    /// It states a size beyond [`MAX_IMAGE_SIDE`] or [`MAX_IMAGE_PIXELS`] (or no pixels).
    Oversized(ImageSize),
}

/// What `content` is as an image: `None` when it starts with no image format's
/// signature; else its format and either its size or why it is no usable image.
#[must_use]
pub fn inspect_image(content: &[u8]) -> Option<(ImageFormat, Result<ImageSize, ImageProblem>)> {
    let format = ImageFormat::claimed_by(content)?;
    let decoded = match format {
        ImageFormat::Png => png_size(content),
        ImageFormat::Jpeg => jpeg_size(content),
        ImageFormat::Gif => gif_size(content),
        ImageFormat::Webp => webp_size(content),
    };
    Some((format, decoded))
}

/// Whether `size` is within [`MAX_IMAGE_SIDE`] and [`MAX_IMAGE_PIXELS`], and not empty.
#[must_use]
pub fn size_allowed(size: ImageSize) -> bool {
    let pixels = u64::from(size.width) * u64::from(size.height);
    size.width <= MAX_IMAGE_SIDE
        && size.height <= MAX_IMAGE_SIDE
        && (1..=MAX_IMAGE_PIXELS).contains(&pixels)
}

fn undecodable(reason: impl std::fmt::Display) -> ImageProblem {
    ImageProblem::Undecodable {
        reason: reason.to_string(),
    }
}

/// Checks the stated size, then lets `rest` decode the rest of the header: a size past
/// the limit is named even where the decoder would give up on it.
fn sized(
    width: u32,
    height: u32,
    rest: impl FnOnce() -> Result<(), ImageProblem>,
) -> Result<ImageSize, ImageProblem> {
    let size = ImageSize { width, height };
    if !size_allowed(size) {
        return Err(ImageProblem::Oversized(size));
    }
    rest()?;
    Ok(size)
}

fn png_size(content: &[u8]) -> Result<ImageSize, ImageProblem> {
    let mut decoder = png::Decoder::new(Cursor::new(content));
    // Their CRCs still checked, the compressed metadata is not inflated: a colour
    // profile or text that unpacks to megabytes costs nothing here.
    decoder.set_ignore_text_chunk(true);
    decoder.set_ignore_iccp_chunk(true);
    let info = decoder.read_header_info().map_err(png_problem)?;
    let (width, height) = (info.width, info.height);
    sized(width, height, || {
        decoder.read_info().map(drop).map_err(png_problem)
    })
}

/// The png crate's words, a chunk type written by its name (`IHDR`) where the crate
/// writes its debug form (`ChunkType { type: IHDR, critical: true, … }`).
fn png_problem(error: png::DecodingError) -> ImageProblem {
    const DEBUG_FORM: &str = "ChunkType { type: ";
    let mut text = error.to_string();
    while let Some(start) = text.find(DEBUG_FORM) {
        let name_start = start + DEBUG_FORM.len();
        let Some(length) = text[name_start..].find('}') else {
            break;
        };
        let name: String = text[name_start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        text.replace_range(start..=name_start + length, &name);
    }
    undecodable(text)
}

fn jpeg_size(content: &[u8]) -> Result<ImageSize, ImageProblem> {
    use zune_jpeg::zune_core::bytestream::ZCursor;
    use zune_jpeg::zune_core::options::DecoderOptions;
    // A JPEG states at most 65 535 a side: the decoder's own cap is lifted so that the
    // limit here is the one named.
    let options = DecoderOptions::default()
        .set_max_width(usize::from(u16::MAX))
        .set_max_height(usize::from(u16::MAX));
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(ZCursor::new(content), options);
    decoder.decode_headers().map_err(undecodable)?;
    let (width, height) = decoder
        .dimensions()
        .ok_or_else(|| undecodable("no frame header"))?;
    let side = |n: usize| u32::try_from(n).map_err(|_| undecodable("a side over 2^32"));
    sized(side(width)?, side(height)?, || Ok(()))
}

fn gif_size(content: &[u8]) -> Result<ImageSize, ImageProblem> {
    let mut decoder = gif::DecodeOptions::new()
        .read_info(content)
        .map_err(undecodable)?;
    let (width, height) = (u32::from(decoder.width()), u32::from(decoder.height()));
    sized(width, height, || match decoder.next_frame_info() {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(undecodable("no image in the file")),
        Err(error) => Err(undecodable(error)),
    })
}

fn webp_size(content: &[u8]) -> Result<ImageSize, ImageProblem> {
    let decoder = image_webp::WebPDecoder::new(Cursor::new(content)).map_err(undecodable)?;
    let (width, height) = decoder.dimensions();
    sized(width, height, || Ok(()))
}

#[cfg(test)]
#[path = "image_header_tests.rs"]
mod tests;
