//! [`Root`]: a handle on a folder, and every operation on what lies beneath it.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use rustix::fs::{Mode, OFlags};

use crate::error::ConfinedError;
use crate::kind::{FileKind, Metadata};
use crate::names::Names;
use crate::sys::{self, At};
use crate::{Access, Links, Resolver};

/// A folder that a model, a command or a user may change, opened once: every path
/// given to its methods is resolved beneath it by the kernel (or name by name without
/// following links), never as a joined path checked beforehand. Paths are relative,
/// of plain names (`..` and absolute paths are refused before anything is touched).
#[derive(Debug)]
pub struct Root {
    pub(crate) fd: OwnedFd,
    pub(crate) path: PathBuf,
    pub(crate) links: Links,
    pub(crate) resolver: Resolver,
}

impl Root {
    /// Opens the folder `path` as a root with the link rule `links`. Links in `path`
    /// itself are followed: it is the caller's own path (a home's workspace, say),
    /// not one a user chose.
    ///
    /// # Errors
    /// [`ConfinedError::Root`] when it is not an existing folder.
    pub fn open(path: impl AsRef<Path>, links: Links) -> Result<Self, ConfinedError> {
        let path = path.as_ref();
        let fd = sys::open_root(path).map_err(|errno| ConfinedError::Root {
            root: path.display().to_string(),
            source: errno.into(),
        })?;
        let resolver = if sys::kernel_resolves(fd.as_fd()) {
            Resolver::Kernel
        } else {
            Resolver::Walk
        };
        Ok(Self {
            fd,
            path: path.to_path_buf(),
            links,
            resolver,
        })
    }

    /// Creates the folder `path` with its missing parents when it is not there, then
    /// opens it as [`Root::open`] does. Only for the caller's own paths (a configured
    /// workspace), never for a path joined from what a user or a model gave.
    ///
    /// # Errors
    /// [`ConfinedError::Root`] when it cannot be created or opened.
    pub fn create(path: impl AsRef<Path>, links: Links) -> Result<Self, ConfinedError> {
        let path = path.as_ref();
        std::fs::create_dir_all(path).map_err(|source| ConfinedError::Root {
            root: path.display().to_string(),
            source,
        })?;
        Self::open(path, links)
    }

    /// The same root resolving with `resolver`: [`Resolver::Walk`] always works;
    /// [`Resolver::Kernel`] only where the kernel has `openat2` (else it stays `Walk`).
    #[must_use]
    pub fn with_resolver(mut self, resolver: Resolver) -> Self {
        if resolver == Resolver::Walk || sys::kernel_resolves(self.fd.as_fd()) {
            self.resolver = resolver;
        }
        self
    }

    /// How paths are resolved here.
    #[must_use]
    pub fn resolver(&self) -> Resolver {
        self.resolver
    }

    /// The link rule.
    #[must_use]
    pub fn links(&self) -> Links {
        self.links
    }

    /// The root's path, as opened (for messages; never used to reach a file).
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn at(&self) -> At<'_> {
        At {
            root: self.fd.as_fd(),
            links: self.links,
            resolver: self.resolver,
        }
    }

    /// Opens the regular file `path` for `access`. Reading never blocks (a pipe or a
    /// device is refused unread); [`Access::CreateNew`] never replaces anything, not
    /// even a link (that is [`ConfinedError::Exists`]).
    ///
    /// # Errors
    /// [`ConfinedError::NotRegular`] for a folder, device, pipe or socket; a link, a way
    /// out or a missing parent as their variants.
    pub fn open_file(&self, path: impl AsRef<Path>, access: Access) -> Result<File, ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        let (fd, _) = self.open_regular(&names, access)?;
        Ok(File::from(fd))
    }

    /// Opens the regular file `path` for reading, with what its handle says it is
    /// (its size, and how many names it has: more than one is a hard link).
    ///
    /// # Errors
    /// As [`Root::open_file`].
    pub fn open_read(&self, path: impl AsRef<Path>) -> Result<(File, Metadata), ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        let (fd, meta) = self.open_regular(&names, Access::Read)?;
        Ok((File::from(fd), meta))
    }

    fn open_regular(
        &self,
        names: &Names,
        access: Access,
    ) -> Result<(OwnedFd, Metadata), ConfinedError> {
        let common = OFlags::NOCTTY | OFlags::NONBLOCK;
        let (flags, action) = match access {
            Access::Read => (OFlags::RDONLY | common, "open"),
            Access::Replace => (
                OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | common,
                "write",
            ),
            Access::Append => (
                OFlags::WRONLY | OFlags::CREATE | OFlags::APPEND | common,
                "write",
            ),
            Access::CreateNew => (
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | common,
                "create",
            ),
        };
        let mode = if flags.contains(OFlags::CREATE) {
            Mode::from_raw_mode(0o666)
        } else {
            Mode::empty()
        };
        let fd = sys::open(self.at(), names, flags, mode).map_err(|errno| {
            match self.fail(names, action, errno) {
                // O_EXCL never follows a last link: something is there.
                ConfinedError::Link { path, dir: false } if access == Access::CreateNew => {
                    ConfinedError::Exists { path }
                }
                other => other,
            }
        })?;
        let meta = sys::metadata(&fd).map_err(|errno| self.io("examine", names, errno))?;
        match meta.kind {
            FileKind::File => Ok((fd, meta)),
            FileKind::Link => Err(ConfinedError::Link {
                path: names.shown(),
                dir: false,
            }),
            kind => Err(ConfinedError::NotRegular {
                path: names.shown(),
                kind,
            }),
        }
    }

    /// The content of the regular file `path`, at most `limit` bytes: the size is
    /// checked before reading and no more than `limit + 1` bytes are ever read.
    ///
    /// # Errors
    /// [`ConfinedError::TooLarge`] past `limit`; as [`Root::open_file`] otherwise.
    pub fn read(&self, path: impl AsRef<Path>, limit: u64) -> Result<Vec<u8>, ConfinedError> {
        let names = Names::parse(path.as_ref())?;
        let (fd, meta) = self.open_regular(&names, Access::Read)?;
        let too_large = |size| ConfinedError::TooLarge {
            path: names.shown(),
            size,
            limit,
        };
        if meta.len > limit {
            return Err(too_large(meta.len));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len).unwrap_or(0));
        File::from(fd)
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|source| ConfinedError::Io {
                action: "read",
                path: names.shown(),
                source,
            })?;
        if bytes.len() as u64 > limit {
            return Err(too_large(bytes.len() as u64));
        }
        Ok(bytes)
    }

    /// Creates the regular file `path`, which must not exist (nor be a link).
    ///
    /// # Errors
    /// [`ConfinedError::Exists`] when anything is there; as [`Root::open_file`].
    pub fn create_new(&self, path: impl AsRef<Path>) -> Result<File, ConfinedError> {
        self.open_file(path, Access::CreateNew)
    }
}
