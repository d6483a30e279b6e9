//! What a path is: its kind, size and links, and one entry of a folder.

use std::fmt;

/// What a file-system entry is (a link is reported as a link, never followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A folder.
    Dir,
    /// A symbolic link.
    Link,
    /// A named pipe (FIFO).
    Fifo,
    /// A socket.
    Socket,
    /// A character or block device.
    Device,
    /// Something else.
    Other,
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::File => "a regular file",
            Self::Dir => "a folder",
            Self::Link => "a symbolic link",
            Self::Fifo => "a named pipe (FIFO)",
            Self::Socket => "a socket",
            Self::Device => "a device",
            Self::Other => "a special file",
        })
    }
}

/// What [`Root::metadata`](crate::Root::metadata) and
/// [`Root::symlink_metadata`](crate::Root::symlink_metadata) say about a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Metadata {
    /// Its kind.
    pub kind: FileKind,
    /// Its size in bytes (a regular file's content; otherwise what the system says).
    pub len: u64,
    /// How many names it has (a regular file with more than one is hard-linked).
    pub links: u64,
    /// Its inode number (with the size and modification time, what tells a changed
    /// file from an unchanged one without reading it).
    pub inode: u64,
    /// Its last modification time, in nanoseconds since the Unix epoch.
    pub modified_ns: i64,
}

impl Metadata {
    /// Whether it is a regular file.
    #[must_use]
    pub fn is_file(&self) -> bool {
        self.kind == FileKind::File
    }

    /// Whether it is a folder.
    #[must_use]
    pub fn is_dir(&self) -> bool {
        self.kind == FileKind::Dir
    }
}

/// One entry of a folder read beneath the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its name (lossily UTF-8).
    pub name: String,
    /// What it is (a link is not followed).
    pub kind: FileKind,
    /// A regular file's size in bytes.
    pub size: Option<u64>,
    /// A link's target as written.
    pub target: Option<String>,
    /// Its inode number, when it could be examined.
    pub inode: Option<u64>,
    /// Its last modification time in nanoseconds since the Unix epoch, when it could
    /// be examined.
    pub modified_ns: Option<i64>,
}
