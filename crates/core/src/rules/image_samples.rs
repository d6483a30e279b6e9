//! Images for the tests of the attachment rules: real 3×2 files of each format (as
//! written by ImageMagick and cwebp), and PNG headers stating any size.

/// A 3×2 PNG.
pub const PNG: &[u8] = include_bytes!("image_samples/tiny.png");
/// A 3×2 baseline JPEG.
pub const JPEG: &[u8] = include_bytes!("image_samples/tiny.jpg");
/// A 3×2 GIF.
pub const GIF: &[u8] = include_bytes!("image_samples/tiny.gif");
/// A 3×2 WebP, lossy (`VP8 `).
pub const WEBP_LOSSY: &[u8] = include_bytes!("image_samples/lossy.webp");
/// A 3×2 WebP, lossless (`VP8L`).
pub const WEBP_LOSSLESS: &[u8] = include_bytes!("image_samples/lossless.webp");
/// A 3×2 WebP, extended (`VP8X`, with alpha).
pub const WEBP_EXTENDED: &[u8] = include_bytes!("image_samples/extended.webp");

/// A PNG chunk with its CRC.
pub fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    [
        &u32::try_from(data.len()).unwrap().to_be_bytes()[..],
        kind,
        data,
        &crc.finalize().to_be_bytes(),
    ]
    .concat()
}

/// A well-formed PNG header (IHDR, an empty IDAT, IEND) stating `width`×`height`.
pub fn png_stating(width: u32, height: u32) -> Vec<u8> {
    let ihdr = [
        &width.to_be_bytes()[..],
        &height.to_be_bytes(),
        &[8, 6, 0, 0, 0],
    ]
    .concat();
    [
        &b"\x89PNG\r\n\x1a\n"[..],
        &chunk(b"IHDR", &ihdr),
        &chunk(b"IDAT", &[]),
        &chunk(b"IEND", &[]),
    ]
    .concat()
}
