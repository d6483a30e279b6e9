//! How much a checkpoint keeps.

/// The size limits of what a capture keeps. A file larger than `file_bytes`, or one
/// whose content would take a capture past `capture_bytes`, is listed as not captured
/// with the reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The largest file whose content is kept (bytes).
    pub file_bytes: u64,
    /// The most new content one capture keeps (bytes).
    pub capture_bytes: u64,
}

impl Limits {
    /// 10 MiB a file.
    pub const DEFAULT_FILE_BYTES: u64 = 10 * 1024 * 1024;
    /// 100 MiB a capture.
    pub const DEFAULT_CAPTURE_BYTES: u64 = 100 * 1024 * 1024;
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            file_bytes: Self::DEFAULT_FILE_BYTES,
            capture_bytes: Self::DEFAULT_CAPTURE_BYTES,
        }
    }
}
