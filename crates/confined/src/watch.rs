//! [`Watcher`]: change notifications on folders beneath a [`Root`] (Linux's inotify),
//! so that a caller keeping an index of a tree can look only at what changed instead
//! of examining every file again.
//!
//! A folder is watched through a handle opened beneath the root like any other path
//! (no link followed): the watch is added on `/proc/self/fd/N` of that handle, so it is
//! on the very folder that was resolved, never on a path looked up again. Events name
//! the watched folder (by the [`WatchId`] its watch was given) and the entry's name
//! inside it; what the entry is now is for the caller to examine beneath the root.
//!
//! inotify has limits the caller must treat as "look at everything again": a full
//! event queue ([`Notice::Overflow`]), a watch that cannot be added (the per-user
//! limit), changes it does not report (a file written through a hard link from outside
//! the tree, or through a memory map).

use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use crate::Root;
use crate::error::ConfinedError;
use crate::names::Names;

/// A watched folder's identity within its [`Watcher`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WatchId(i32);

/// What happened, as the kernel reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The entry `name` of the watched folder `folder` was created, written, changed
    /// in its attributes, removed or moved in or out. `dir`: the entry is a folder.
    Entry {
        /// The watched folder.
        folder: WatchId,
        /// The entry's name (lossily UTF-8, as folder listings give names).
        name: String,
        /// Whether the entry is a folder.
        dir: bool,
        /// What happened to it.
        change: EntryChange,
    },
    /// The watched folder itself was removed (its watch is over) or moved (its
    /// watch goes on where it went, under the same id).
    FolderGone(WatchId),
    /// Events were lost (the kernel's queue was full): anything may have changed.
    Overflow,
}

/// What happened to an entry of a watched folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryChange {
    /// Created, or moved into the folder.
    Arrived,
    /// Removed, or moved out of the folder.
    Gone,
    /// Written to, or its attributes changed.
    Written,
}

/// Change notifications on folders beneath roots (inotify; on other systems
/// [`Watcher::new`] fails and callers examine everything each time).
#[derive(Debug)]
pub struct Watcher {
    fd: OwnedFd,
}

/// The events a folder's watch asks for: every change of its entries and of itself.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn interest() -> rustix::fs::inotify::WatchFlags {
    use rustix::fs::inotify::WatchFlags;
    WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::MODIFY
        | WatchFlags::ATTRIB
        | WatchFlags::CLOSE_WRITE
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
        | WatchFlags::ONLYDIR
}

#[cfg(any(target_os = "linux", target_os = "android"))]
impl Watcher {
    /// A new watcher with no folder watched.
    ///
    /// # Errors
    /// [`ConfinedError::Io`] when the system refuses one (the per-user limit of
    /// watchers).
    pub fn new() -> Result<Self, ConfinedError> {
        use rustix::fs::inotify::{CreateFlags, init};
        let fd = init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).map_err(|errno| {
            ConfinedError::Io {
                action: "start watching",
                path: ".".into(),
                source: errno.into(),
            }
        })?;
        Ok(Self { fd })
    }

    /// Watches the folder `path` beneath `root` (`""` or `"."`: the root itself). A
    /// folder watched already keeps its id.
    ///
    /// # Errors
    /// As [`Root::open_dir`] for the path; [`ConfinedError::Io`] when the watch cannot
    /// be added (the per-user limit of watches, no `/proc`).
    pub fn watch(&self, root: &Root, path: impl AsRef<Path>) -> Result<WatchId, ConfinedError> {
        use std::os::fd::AsRawFd;
        let names = Names::parse(path.as_ref())?;
        let folder = root.dir_fd(&names)?;
        // The handle's own folder, whatever its path has become since it was opened.
        let handle = format!("/proc/self/fd/{}", folder.as_raw_fd());
        let id = rustix::fs::inotify::add_watch(self.fd.as_fd(), handle, interest()).map_err(
            |errno| ConfinedError::Io {
                action: "watch",
                path: names.shown(),
                source: errno.into(),
            },
        )?;
        Ok(WatchId(id))
    }

    /// Stops watching `folder` (nothing when its watch is over already).
    pub fn unwatch(&self, folder: WatchId) {
        // EINVAL: the kernel ended the watch already (the folder is gone).
        let _ = rustix::fs::inotify::remove_watch(self.fd.as_fd(), folder.0);
    }

    /// Every notice queued since the last call, in the order they happened; never
    /// waits.
    ///
    /// # Errors
    /// [`ConfinedError::Io`] when the queue cannot be read.
    pub fn drain(&self) -> Result<Vec<Notice>, ConfinedError> {
        use rustix::fs::inotify::{ReadFlags, Reader};
        use rustix::io::Errno;
        let mut buffer = [std::mem::MaybeUninit::<u8>::uninit(); 16 * 1024];
        let mut reader = Reader::new(self.fd.as_fd(), &mut buffer);
        let mut notices = Vec::new();
        loop {
            let event = match reader.next() {
                Ok(event) => event,
                Err(Errno::AGAIN) => return Ok(notices),
                Err(Errno::INTR) => continue,
                Err(errno) => {
                    return Err(ConfinedError::Io {
                        action: "read the changes under",
                        path: ".".into(),
                        source: errno.into(),
                    });
                }
            };
            let flags = event.events();
            let folder = WatchId(event.wd());
            if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
                notices.push(Notice::Overflow);
            } else if flags.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF) {
                notices.push(Notice::FolderGone(folder));
            } else if flags.contains(ReadFlags::IGNORED) {
                // The watch ended (after FolderGone, or an unwatch): nothing changed.
            } else if let Some(name) = event.file_name() {
                let change = if flags.intersects(ReadFlags::DELETE | ReadFlags::MOVED_FROM) {
                    EntryChange::Gone
                } else if flags.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO) {
                    EntryChange::Arrived
                } else {
                    EntryChange::Written
                };
                notices.push(Notice::Entry {
                    folder,
                    name: name.to_string_lossy().into_owned(),
                    dir: flags.contains(ReadFlags::ISDIR),
                    change,
                });
            }
        }
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
impl Watcher {
    /// No change notifications on this system.
    ///
    /// # Errors
    /// Always [`ConfinedError::Unsupported`].
    pub fn new() -> Result<Self, ConfinedError> {
        Err(ConfinedError::Unsupported { path: ".".into() })
    }

    /// Never reached (no watcher exists here).
    ///
    /// # Errors
    /// Always [`ConfinedError::Unsupported`].
    pub fn watch(&self, _: &Root, path: impl AsRef<Path>) -> Result<WatchId, ConfinedError> {
        Err(ConfinedError::Unsupported {
            path: path.as_ref().display().to_string(),
        })
    }

    /// Never reached.
    pub fn unwatch(&self, _: WatchId) {}

    /// Never reached.
    ///
    /// # Errors
    /// Always [`ConfinedError::Unsupported`].
    pub fn drain(&self) -> Result<Vec<Notice>, ConfinedError> {
        Err(ConfinedError::Unsupported { path: ".".into() })
    }
}
