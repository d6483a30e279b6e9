//! Small files for tests that attach files.

/// The start of a PNG of `width`×`height` (signature and `IHDR` chunk): enough for a
/// sniffer to take it for a PNG and read its size.
#[must_use]
pub fn png_header(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
    bytes
}
