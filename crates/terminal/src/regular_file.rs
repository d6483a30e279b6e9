//! Reading a file a person names on the terminal (`run --attach`, `@path`, `/attach`, a
//! pasted path): only a regular file, opened without blocking, its size taken from the
//! open handle and at most `limit + 1` bytes of it read.
//!
//! A FIFO without a writer would block an `open` for reading; `/dev/zero` or
//! `/dev/urandom` never end; a sparse file may state gigabytes. So the path is looked
//! at first (a device is never opened), then opened with `O_NONBLOCK` (a FIFO put in
//! its place meanwhile does not block) and `O_NOCTTY`, and what was opened is checked
//! again on the handle (`fstat`): only then is anything read, never more than the
//! limit and one byte.

use std::fs::{File, FileType};
use std::io::Read;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

/// Why a file could not be read.
#[derive(Debug)]
pub enum ReadRefusal {
    /// It is no regular file: what it is (`a FIFO (named pipe)`, `a directory`, …).
    NotRegular(&'static str),
    /// It has more bytes than the limit: its size (at least `limit + 1`).
    TooLarge(u64),
    /// Opening or reading it failed.
    Io(std::io::Error),
}

impl From<std::io::Error> for ReadRefusal {
    fn from(error: std::io::Error) -> Self {
        Self::Io(error)
    }
}

/// What a file of `file_type` is, for a refusal; `None` for a regular file.
fn not_regular(file_type: FileType) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt as _;
    if file_type.is_file() {
        None
    } else if file_type.is_dir() {
        Some("a directory")
    } else if file_type.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if file_type.is_socket() {
        Some("a socket")
    } else if file_type.is_char_device() {
        Some("a character device")
    } else if file_type.is_block_device() {
        Some("a block device")
    } else {
        Some("not a regular file")
    }
}

/// Opens the regular file `path` (following links, as the person's shell would) for
/// reading without blocking; its handle and its size as the handle states it.
///
/// # Errors
/// [`ReadRefusal::NotRegular`] for anything but a regular file (never opened when the
/// path already shows it), [`ReadRefusal::Io`] when it cannot be opened.
pub fn open_regular(path: &Path) -> Result<(File, u64), ReadRefusal> {
    if let Some(what) = not_regular(std::fs::metadata(path)?.file_type()) {
        return Err(ReadRefusal::NotRegular(what));
    }
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let file =
        File::from(rustix::fs::open(path, flags, Mode::empty()).map_err(std::io::Error::from)?);
    let metadata = file.metadata()?;
    if let Some(what) = not_regular(metadata.file_type()) {
        return Err(ReadRefusal::NotRegular(what));
    }
    Ok((file, metadata.len()))
}

/// The content of the regular file `path`, which must have at most `limit` bytes: its
/// stated size is checked before anything is read, and no more than `limit + 1` bytes
/// are read (a file that grows meanwhile is refused too).
///
/// # Errors
/// As [`open_regular`]; [`ReadRefusal::TooLarge`] past `limit`.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadRefusal> {
    let (file, size) = open_regular(path)?;
    if size > limit {
        return Err(ReadRefusal::TooLarge(size));
    }
    read_at_most(file, size, limit)
}

/// The first `limit` bytes (at most) of the regular file `path`.
///
/// # Errors
/// As [`open_regular`].
pub fn read_head(path: &Path, limit: u64) -> Result<Vec<u8>, ReadRefusal> {
    let (file, size) = open_regular(path)?;
    let mut head = Vec::with_capacity(capacity(size.min(limit)));
    file.take(limit).read_to_end(&mut head)?;
    Ok(head)
}

fn read_at_most(file: File, size: u64, limit: u64) -> Result<Vec<u8>, ReadRefusal> {
    let mut content = Vec::with_capacity(capacity(size));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut content)?;
    let read = u64::try_from(content.len()).unwrap_or(u64::MAX);
    if read > limit {
        return Err(ReadRefusal::TooLarge(read));
    }
    Ok(content)
}

/// A buffer for `size` bytes, one more to see the end.
fn capacity(size: u64) -> usize {
    usize::try_from(size).map_or(0, |size| size.saturating_add(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal_of(result: Result<Vec<u8>, ReadRefusal>) -> String {
        match result {
            Ok(content) => format!("read {} bytes", content.len()),
            Err(ReadRefusal::NotRegular(what)) => format!("not regular: {what}"),
            Err(ReadRefusal::TooLarge(size)) => format!("too large: {size}"),
            Err(ReadRefusal::Io(error)) => format!("io: {:?}", error.kind()),
        }
    }

    #[test]
    fn only_regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let sparse = dir.path().join("sparse");
        File::create(&sparse).unwrap().set_len(2 << 30).unwrap();
        std::fs::write(dir.path().join("ten"), "0123456789").unwrap();
        std::os::unix::fs::symlink("ten", dir.path().join("link")).unwrap();
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let cases: &[(&Path, u64, &str)] = &[
            (&fifo, 100, "not regular: a FIFO (named pipe)"),
            (
                Path::new("/dev/zero"),
                100,
                "not regular: a character device",
            ),
            (
                Path::new("/dev/null"),
                100,
                "not regular: a character device",
            ),
            (dir.path(), 100, "not regular: a directory"),
            (&socket, 100, "not regular: a socket"),
            (&sparse, 100, "too large: 2147483648"),
            (&dir.path().join("ten"), 10, "read 10 bytes"),
            (&dir.path().join("ten"), 9, "too large: 10"),
            (&dir.path().join("link"), 10, "read 10 bytes"),
            (&dir.path().join("missing"), 10, "io: NotFound"),
        ];
        for (path, limit, expected) in cases {
            let found = refusal_of(read_regular(path, *limit));
            assert_eq!(&found, expected, "{}", path.display());
        }
        assert_eq!(refusal_of(read_head(&sparse, 16)), "read 16 bytes");
        assert_eq!(
            refusal_of(read_head(&fifo, 16)),
            "not regular: a FIFO (named pipe)"
        );
    }

    #[test]
    fn a_file_that_grew_past_the_limit_while_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("growing");
        std::fs::write(&path, "12345").unwrap();
        let (file, size) = open_regular(&path).unwrap();
        std::fs::write(&path, "123456789").unwrap();
        assert_eq!(
            refusal_of(read_at_most(file, size, 6)),
            "too large: 7",
            "no more than the limit and one byte is read"
        );
    }
}
