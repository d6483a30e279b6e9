//! What can go wrong beneath a root: one error type, each message naming the path
//! (relative to the root) and what to do.

use std::fmt;
use std::io;

use crate::kind::FileKind;

/// Why a confined operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfinedError {
    /// The path is absolute, holds `..`, or names the root where a name is needed.
    #[error(
        "'{path}' is not a path of plain names inside the folder (no leading '/', no '..'); \
         give a relative path such as 'notes/todo.md'"
    )]
    NotRelative {
        /// The path as given.
        path: String,
    },
    /// The root itself could not be opened.
    #[error("the folder '{root}' could not be opened ({source}); check that it exists")]
    Root {
        /// The root's path.
        root: String,
        /// The failure.
        source: io::Error,
    },
    /// A component is a symbolic link where links are not followed.
    #[error("{}", LinkText { path, dir: *dir })]
    Link {
        /// The link, relative to the root.
        path: String,
        /// Whether it stood where a folder was needed (a parent of the path).
        dir: bool,
    },
    /// The path leads outside the root (a link pointing out of it).
    #[error(
        "'{path}' leads outside the folder through a symbolic link; only what is inside \
         it can be used, so give a path that does not go through that link"
    )]
    Escape {
        /// The path, relative to the root.
        path: String,
    },
    /// The path goes through a loop of links.
    #[error("'{path}' goes through a loop of symbolic links; remove or fix the link")]
    Loop {
        /// The path, relative to the root.
        path: String,
    },
    /// A component that must be a folder is not one.
    #[error("'{path}' is not a folder; choose another path")]
    NotDirectory {
        /// That component, relative to the root.
        path: String,
    },
    /// The file is not a regular file (a folder, device, pipe or socket).
    #[error("'{path}' is {kind}, not a regular file; only regular files are read or written")]
    NotRegular {
        /// The path, relative to the root.
        path: String,
        /// What it is.
        kind: FileKind,
    },
    /// Nothing is there.
    #[error("'{path}' does not exist")]
    NotFound {
        /// The path, relative to the root.
        path: String,
    },
    /// Something is there already (a file, folder or link), where a new one was to be made.
    #[error("'{path}' exists already")]
    Exists {
        /// The path, relative to the root.
        path: String,
    },
    /// The file is larger than the caller reads.
    #[error("'{path}' is {size} bytes, over the limit of {limit} bytes")]
    TooLarge {
        /// The path, relative to the root.
        path: String,
        /// Its size (at least; it may have grown while it was read).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Another failure of the system.
    #[error("could not {action} '{path}' ({source})")]
    Io {
        /// What was being done ("open", "read", "create the folder", …).
        action: &'static str,
        /// The path, relative to the root.
        path: String,
        /// The failure.
        source: io::Error,
    },
    /// This system has none of the calls that resolve a path beneath a handle.
    #[error("confined file access needs a Unix system; '{path}' was not touched")]
    Unsupported {
        /// The path, relative to the root.
        path: String,
    },
}

impl ConfinedError {
    /// Whether this is a refusal of the path itself (a link, a way out, a malformed
    /// path), rather than a failure such as a missing file.
    #[must_use]
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Self::NotRelative { .. } | Self::Link { .. } | Self::Escape { .. } | Self::Loop { .. }
        )
    }
}

/// The text of [`ConfinedError::Link`].
struct LinkText<'a> {
    path: &'a str,
    dir: bool,
}

impl fmt::Display for LinkText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.dir {
            write!(
                f,
                "{}/ is a symbolic link, and links are not followed here; make it a real \
                 folder or remove it",
                self.path
            )
        } else {
            write!(
                f,
                "{} is a symbolic link, and links are not followed here; remove it or use \
                 another name",
                self.path
            )
        }
    }
}
