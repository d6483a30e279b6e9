//! Folders beneath a [`Root`]: made one at a time, listed, opened as roots of their
//! own; renames and removals that never follow a link.

use std::ffi::CString;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

use crate::Root;
use crate::diagnose::as_folder;
use crate::error::ConfinedError;
use crate::kind::{Entry, FileKind, Metadata};
use crate::names::Names;
use crate::sys;

impl Root {
    /// Creates the folder `path` and its missing parents one at a time, each made in
    /// its parent's handle and opened again beneath the root before the next (like
    /// `mkdir -p`, never on a joined path).
    ///
    /// # Errors
    /// A component that is a link (where links are refused) or not a folder, as their
    /// variants; the failing step's error otherwise.
    pub fn create_dirs(&self, path: impl AsRef<Path>) -> Result<(), ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        for depth in 1..=names.parts().len() {
            let prefix = names.prefix(depth);
            let Some((parent, last)) = prefix.split_last() else {
                continue;
            };
            let parent_fd = self.dir_fd(&parent)?;
            sys::mkdir_at(parent_fd.as_fd(), last)
                .map_err(|errno| self.fail(&prefix, "create the folder", errno))?;
        }
        self.dir_fd(&names).map(drop)
    }

    /// Creates the one folder `path`, which must not exist; its parent must.
    ///
    /// # Errors
    /// [`ConfinedError::Exists`] when anything is there (a link too); a parent that
    /// is a link, missing or not a folder.
    pub fn create_dir(&self, path: impl AsRef<Path>) -> Result<(), ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        let Some((parent, last)) = names.split_last() else {
            return Err(ConfinedError::Exists {
                path: names.shown(),
            });
        };
        let parent_fd = self.dir_fd(&parent)?;
        match sys::mkdir_at(parent_fd.as_fd(), last) {
            Ok(true) => Ok(()),
            Ok(false) => Err(ConfinedError::Exists {
                path: names.shown(),
            }),
            Err(errno) => Err(self.fail(&names, "create the folder", errno)),
        }
    }

    /// The folder `path` as a root of its own, with the same rules.
    ///
    /// # Errors
    /// As [`Root::create_dirs`] for a link or a component that is not a folder.
    pub fn open_dir(&self, path: impl AsRef<Path>) -> Result<Self, ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        let fd = self.dir_fd(&names)?;
        Ok(Self {
            fd,
            path: self.path.join(names.joined()),
            links: self.links,
            resolver: self.resolver,
        })
    }

    /// A handle on the folder `names`.
    pub(crate) fn dir_fd(&self, names: &Names) -> Result<OwnedFd, ConfinedError> {
        let fd = sys::open(self.at(), names, sys::DIR_HANDLE, Mode::empty())
            .map_err(|errno| as_folder(self.fail(names, "open the folder", errno)))?;
        match sys::kind_of(&fd).map_err(|errno| self.io("examine", names, errno))? {
            FileKind::Dir => Ok(fd),
            FileKind::Link => Err(ConfinedError::Link {
                path: names.shown(),
                dir: true,
            }),
            _ => Err(ConfinedError::NotDirectory {
                path: names.shown(),
            }),
        }
    }

    /// The entries of the folder `path`, in name order, each examined through the
    /// folder's handle (links are reported, never followed).
    ///
    /// # Errors
    /// As [`Root::open_dir`]; reading the folder failed.
    pub fn read_dir(&self, path: impl AsRef<Path>) -> Result<Vec<Entry>, ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        let fd = sys::open(
            self.at(),
            &names,
            OFlags::RDONLY | OFlags::DIRECTORY,
            Mode::empty(),
        )
        .map_err(|errno| as_folder(self.fail(&names, "list", errno)))?;
        let mut entries = sys::entries(&fd).map_err(|errno| self.io("list", &names, errno))?;
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    /// What `path` is, reached as an open would reach it (a last link followed only
    /// where links are followed). Never opens the file for reading.
    ///
    /// # Errors
    /// [`ConfinedError::NotFound`] when nothing is there; a link or a way out.
    pub fn metadata(&self, path: impl AsRef<Path>) -> Result<Metadata, ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        let fd = sys::open(self.at(), &names, sys::STAT_HANDLE, Mode::empty())
            .map_err(|errno| self.fail(&names, "examine", errno))?;
        let meta = sys::metadata(&fd).map_err(|errno| self.io("examine", &names, errno))?;
        if meta.kind == FileKind::Link {
            return Err(ConfinedError::Link {
                path: names.shown(),
                dir: false,
            });
        }
        Ok(meta)
    }

    /// What `path` itself is: a last link is reported as a link (its parents are
    /// resolved by the root's rule).
    ///
    /// # Errors
    /// [`ConfinedError::NotFound`] when nothing is there; a parent that is a link.
    pub fn symlink_metadata(&self, path: impl AsRef<Path>) -> Result<Metadata, ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        let Some((parent, last)) = names.split_last() else {
            return self.metadata(".");
        };
        let dir = self.dir_fd(&parent)?;
        sys::stat_at(dir.as_fd(), last).map_err(|errno| self.fail(&names, "examine", errno))
    }

    /// Renames `from` to `to`, both beneath the root (a link is renamed as itself).
    ///
    /// # Errors
    /// A parent that is a link or missing; the rename's own failure.
    pub fn rename(
        &self,
        from: impl AsRef<Path>,
        to: impl AsRef<Path>,
    ) -> Result<(), ConfinedError> {
        let from = Names::parse(from.as_ref())?;
        let to = Names::parse(to.as_ref())?;
        let (Some((from_parent, from_last)), Some((to_parent, to_last))) =
            (from.split_last(), to.split_last())
        else {
            return Err(ConfinedError::NotRelative {
                path: ".".to_owned(),
            });
        };
        let from_dir = self.dir_fd(&from_parent)?;
        let to_dir = self.dir_fd(&to_parent)?;
        sys::rename_at(from_dir.as_fd(), from_last, to_dir.as_fd(), to_last)
            .map_err(|errno| self.fail(&from, "rename", errno))
    }

    /// Removes the file or link `path` (a link itself, never its target).
    ///
    /// # Errors
    /// [`ConfinedError::NotFound`]; a folder is [`ConfinedError::NotRegular`].
    pub fn remove_file(&self, path: impl AsRef<Path>) -> Result<(), ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        let Some((parent, last)) = names.split_last() else {
            return Err(ConfinedError::NotRelative {
                path: ".".to_owned(),
            });
        };
        let dir = self.dir_fd(&parent)?;
        sys::unlink_at(dir.as_fd(), last, false).map_err(|errno| self.fail(&names, "remove", errno))
    }

    /// Removes `path` with everything under it, never following a link (links are
    /// removed as themselves).
    ///
    /// # Errors
    /// A parent that is a link or missing; the first removal that failed.
    pub fn remove_dir_all(&self, path: impl AsRef<Path>) -> Result<(), ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        let Some((parent, last)) = names.split_last() else {
            return Err(ConfinedError::NotRelative {
                path: ".".to_owned(),
            });
        };
        let dir = self.dir_fd(&parent)?;
        let last = CString::new(last.as_bytes()).map_err(|_| ConfinedError::NotRelative {
            path: names.shown(),
        })?;
        sys::remove_tree(dir.as_fd(), &last, 0).map_err(|errno| self.fail(&names, "remove", errno))
    }
}
