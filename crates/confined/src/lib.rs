//! Confined file access for the parts of SmallEBot that run unconfined (the host
//! process) but touch trees that a model, a command or a user can change — the
//! workspaces, attachments' saved copies, skills folders.
//!
//! A [`Root`] is a handle on such a folder; every path given to it is resolved beneath
//! that handle, never as a joined path checked beforehand (a command could swap a
//! folder for a link between the check and the use):
//!
//! - With [`Resolver::Kernel`] (Linux 5.6 and newer) one `openat2` call resolves the
//!   whole path with `RESOLVE_BENEATH`: the kernel refuses `..` above the root,
//!   absolute links and links pointing out of it. [`Links::Refuse`] adds
//!   `RESOLVE_NO_SYMLINKS`: no link is followed at all, wherever it points.
//! - With [`Resolver::Walk`] (older kernels, other Unix systems, `openat2` filtered)
//!   each name is opened from the handle of the folder before it with `O_NOFOLLOW`,
//!   so no link is ever followed — under [`Links::Beneath`] too.
//!
//! Only regular files are opened for reading or writing, checked on the open handle
//! (`fstat`) after an open that cannot block (`O_NONBLOCK`: a named pipe without a
//! writer never hangs the caller); [`Root::read`] checks the size before reading and
//! never reads more than the limit plus one byte. Folders are created one at a time,
//! each beneath the root. Paths are relative and made of plain names: `..` and
//! absolute paths are refused before the system is asked.
//!
//! A [`Watcher`] gives change notifications on folders beneath a root (inotify), each
//! watch added on a folder handle resolved like any other path, never on a path looked
//! up again.
//!
//! The rule for callers: the host's own writes into such a tree (an attachment saved,
//! a skill written) use [`Links::Refuse`]; tools acting for the model may follow links
//! that stay inside ([`Links::Beneath`]). Errors are typed ([`ConfinedError`]) and say
//! which name was the link, the way out or the special file.
//!
//! Why rustix's `openat2` rather than `cap-std`: cap-std resolves beneath a handle
//! too, but follows links that stay inside and has no way to refuse every link on the
//! path (`RESOLVE_NO_SYMLINKS`), which the host's own writes need; rustix is already
//! in the tree and the fallback walk is a few calls of it.

#[cfg(unix)]
mod diagnose;
mod error;
mod kind;
#[cfg(unix)]
mod names;
#[cfg(unix)]
mod root;
#[cfg(not(unix))]
#[path = "unsupported.rs"]
mod root;
#[cfg(unix)]
mod sys;
#[cfg(unix)]
mod tree;
#[cfg(unix)]
mod watch;

pub use error::ConfinedError;
pub use kind::{Entry, FileKind, Metadata};
pub use root::Root;
#[cfg(unix)]
pub use watch::{EntryChange, Notice, WatchId, Watcher};

/// Whether links are followed beneath a [`Root`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// No link is followed anywhere on a path (`RESOLVE_NO_SYMLINKS`): a link is
    /// [`ConfinedError::Link`]. For everything the host itself writes or compares.
    Refuse,
    /// Links are followed while they stay beneath the root (`RESOLVE_BENEATH`; one
    /// pointing out is [`ConfinedError::Escape`]). Where the kernel cannot resolve
    /// beneath a handle ([`Resolver::Walk`]) links are refused as with `Refuse`.
    Beneath,
}

/// How a [`Root`] resolves paths.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolver {
    /// One `openat2` call per path (Linux 5.6 and newer); chosen when available.
    Kernel,
    /// Name by name with `openat` and `O_NOFOLLOW`: no link is followed.
    Walk,
}

/// What a regular file is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Reading.
    Read,
    /// Writing from the start: created if missing, truncated.
    Replace,
    /// Writing at the end: created if missing.
    Append,
    /// Writing a new file: nothing may be there, not even a link.
    CreateNew,
}
