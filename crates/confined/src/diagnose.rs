//! Which name made an operation beneath a [`Root`] fail: the kernel refuses, this
//! says why in the error's own words (a link, a way out, a missing or special file).

use std::os::fd::{AsFd, OwnedFd};

use rustix::io::Errno;

use crate::error::ConfinedError;
use crate::kind::FileKind;
use crate::names::Names;
use crate::{Links, Resolver, Root, sys};

impl Root {
    /// An I/O failure of `action` on `names`.
    pub(crate) fn io(&self, action: &'static str, names: &Names, errno: Errno) -> ConfinedError {
        ConfinedError::Io {
            action,
            path: names.shown(),
            source: errno.into(),
        }
    }

    /// The typed error for a failed resolution or operation on `names`.
    pub(crate) fn fail(&self, names: &Names, action: &'static str, errno: Errno) -> ConfinedError {
        let path = names.shown();
        match errno {
            Errno::XDEV => ConfinedError::Escape { path },
            Errno::EXIST | Errno::NOTEMPTY => ConfinedError::Exists { path },
            Errno::ISDIR => ConfinedError::NotRegular {
                path,
                kind: FileKind::Dir,
            },
            Errno::NXIO | Errno::NODEV => ConfinedError::NotRegular {
                path,
                kind: self.last_kind(names).unwrap_or(FileKind::Other),
            },
            Errno::LOOP | Errno::NOTDIR | Errno::NOENT | Errno::MLINK => {
                self.diagnose(names, action, errno)
            }
            other => self.io(action, names, other),
        }
    }

    /// What the last name of `names` is (not followed), when it can be told.
    fn last_kind(&self, names: &Names) -> Option<FileKind> {
        let (parent, last) = names.split_last()?;
        let dir = self.dir_fd(&parent).ok()?;
        sys::stat_at(dir.as_fd(), last).ok().map(|m| m.kind)
    }

    /// Says which name of `names` made the resolution fail: the first link (where
    /// links are not followed), the first missing name, the first that is not a folder.
    /// Only for the message — the refusal itself was the kernel's.
    fn diagnose(&self, names: &Names, action: &'static str, errno: Errno) -> ConfinedError {
        let follows = self.links == Links::Beneath && self.resolver == Resolver::Kernel;
        let count = names.parts().len();
        let mut dir: Option<OwnedFd> = None;
        for (index, name) in names.parts().iter().enumerate() {
            let from = dir.as_ref().map_or(self.fd.as_fd(), AsFd::as_fd);
            let path = names.prefix(index + 1).shown();
            let last = index + 1 == count;
            match sys::stat_at(from, name.as_os_str()) {
                Err(Errno::NOENT) => return ConfinedError::NotFound { path },
                Err(_) => break,
                Ok(meta) if meta.kind == FileKind::Link && !follows => {
                    return ConfinedError::Link { path, dir: !last };
                }
                Ok(meta) if meta.kind == FileKind::Dir && !last => {
                    match sys::open_child_dir(from, name.as_os_str()) {
                        Ok(next) => dir = Some(next),
                        Err(_) => break,
                    }
                }
                Ok(meta) if meta.kind != FileKind::Dir && meta.kind != FileKind::Link && !last => {
                    return ConfinedError::NotDirectory { path };
                }
                Ok(_) => break,
            }
        }
        let path = names.shown();
        match errno {
            Errno::LOOP | Errno::MLINK if follows => ConfinedError::Loop { path },
            Errno::LOOP | Errno::MLINK => ConfinedError::Link { path, dir: false },
            Errno::NOTDIR => ConfinedError::NotDirectory { path },
            Errno::NOENT => ConfinedError::NotFound { path },
            other => self.io(action, names, other),
        }
    }
}

/// A link found where a folder was needed is reported as a folder's (`NAME/`).
pub(crate) fn as_folder(error: ConfinedError) -> ConfinedError {
    match error {
        ConfinedError::Link { path, .. } => ConfinedError::Link { path, dir: true },
        other => other,
    }
}
