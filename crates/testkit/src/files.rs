//! Small files for tests that attach files.

/// A PNG of `width`×`height` whose header is well formed — the signature, an `IHDR`
/// chunk, an empty `IDAT` and `IEND`, each with its CRC — so that it decodes as a PNG
/// header and states its size; its pixels are not there. Any size can be stated,
/// 100 000 × 100 000 as well.
#[must_use]
pub fn png_header(width: u32, height: u32) -> Vec<u8> {
    let ihdr = [
        &width.to_be_bytes()[..],
        &height.to_be_bytes(),
        &[8, 6, 0, 0, 0],
    ]
    .concat();
    [
        &b"\x89PNG\r\n\x1a\n"[..],
        &png_chunk(b"IHDR", &ihdr),
        &png_chunk(b"IDAT", &[]),
        &png_chunk(b"IEND", &[]),
    ]
    .concat()
}

/// The PNG signature followed by an HTML page: what a hostile upload passes off as an
/// image.
#[must_use]
pub fn png_signature_then_html() -> Vec<u8> {
    [
        &b"\x89PNG\r\n\x1a\n"[..],
        b"<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>",
    ]
    .concat()
}

/// One PNG chunk: length, type, data and the CRC of type and data.
fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    let length = u32::try_from(data.len()).unwrap_or(u32::MAX);
    [
        &length.to_be_bytes()[..],
        kind,
        data,
        &crc.finalize().to_be_bytes(),
    ]
    .concat()
}
