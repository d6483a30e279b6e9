//! Opening workspace paths with the kernel keeping them inside the root.
//!
//! [`Workspace::resolve`](super::Workspace::resolve) checks a path and says what is wrong
//! with it; opening by that checked path afterwards would leave a window in which a
//! command swaps a directory for a symbolic link to somewhere else. Here every open and
//! every directory creation goes through `openat2` with `RESOLVE_BENEATH` relative to
//! a handle on the root: the kernel resolves the whole path in one step and refuses
//! (`EXDEV`) any resolution that leaves the root, through `..`, an absolute symlink or a
//! symlink pointing outside, so the check and the open cannot be raced. Kernels without
//! `openat2` (before Linux 5.6) and other systems fall back to the checked path.

use std::fs::File;
use std::io;
use std::path::Path;

/// What to open a file for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Reading.
    Read,
    /// Writing from the start, created if missing, truncated.
    Replace,
    /// Writing at the end, created if missing.
    Append,
}

/// What a directory entry is (symbolic links are not followed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A directory.
    Dir,
    /// A regular file.
    File,
    /// A symbolic link.
    Link,
    /// A device, socket or pipe.
    Other,
}

/// One entry of a directory read beneath the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Its name (lossily UTF-8).
    pub(crate) name: String,
    /// What it is.
    pub(crate) kind: Kind,
    /// A file's size in bytes.
    pub(crate) size: Option<u64>,
    /// A link's target as written.
    pub(crate) target: Option<String>,
}

/// Whether an error is the kernel refusing to leave the root (`EXDEV`) or to follow a
/// magic link (`ELOOP` with `RESOLVE_NO_MAGICLINKS`).
pub(crate) fn left_the_root(error: &io::Error) -> bool {
    error.raw_os_error() == Some(rustix::io::Errno::XDEV.raw_os_error())
}

#[cfg(target_os = "linux")]
mod imp {
    use std::fs::File;
    use std::io;
    use std::os::fd::OwnedFd;
    use std::path::Path;

    use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, ResolveFlags};
    use rustix::io::Errno;

    use super::{Access, Entry, Kind};

    const RESOLVE: ResolveFlags = ResolveFlags::BENEATH.union(ResolveFlags::NO_MAGICLINKS);

    /// `None`: `openat2` is not available here.
    fn beneath(root: &Path, relative: &str, flags: OFlags) -> Option<io::Result<OwnedFd>> {
        let dir = match rustix::fs::open(
            root,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(dir) => dir,
            Err(error) => return Some(Err(error.into())),
        };
        let relative = if relative.is_empty() { "." } else { relative };
        // openat2 refuses a mode unless it creates.
        let mode = if flags.contains(OFlags::CREATE) {
            Mode::from_raw_mode(0o644)
        } else {
            Mode::empty()
        };
        match rustix::fs::openat2(&dir, relative, flags | OFlags::CLOEXEC, mode, RESOLVE) {
            Err(Errno::NOSYS) => None,
            other => Some(other.map_err(io::Error::from)),
        }
    }

    pub(super) fn open(root: &Path, relative: &str, access: Access) -> Option<io::Result<File>> {
        let flags = match access {
            Access::Read => OFlags::RDONLY | OFlags::NONBLOCK,
            Access::Replace => OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC,
            Access::Append => OFlags::WRONLY | OFlags::CREATE | OFlags::APPEND,
        };
        beneath(root, relative, flags).map(|fd| fd.map(File::from))
    }

    pub(super) fn read_dir(root: &Path, relative: &str) -> Option<io::Result<Vec<Entry>>> {
        let dir = match beneath(root, relative, OFlags::RDONLY | OFlags::DIRECTORY)? {
            Ok(dir) => dir,
            Err(error) => return Some(Err(error)),
        };
        Some(entries(&dir))
    }

    /// The entries of an open directory, each examined through the directory's handle.
    fn entries(dir: &OwnedFd) -> io::Result<Vec<Entry>> {
        let mut out = Vec::new();
        for entry in Dir::read_from(dir)? {
            let entry = entry?;
            let name = entry.file_name();
            if name == c"." || name == c".." {
                continue;
            }
            let stat = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok();
            let kind = match stat.map(|s| FileType::from_raw_mode(s.st_mode)) {
                Some(FileType::Directory) => Kind::Dir,
                Some(FileType::RegularFile) => Kind::File,
                Some(FileType::Symlink) => Kind::Link,
                _ => Kind::Other,
            };
            let target = (kind == Kind::Link)
                .then(|| rustix::fs::readlinkat(dir, name, Vec::new()).ok())
                .flatten()
                .map(|t| t.to_string_lossy().into_owned());
            out.push(Entry {
                name: name.to_string_lossy().into_owned(),
                kind,
                size: stat
                    .filter(|_| kind == Kind::File)
                    .and_then(|s| u64::try_from(s.st_size).ok()),
                target,
            });
        }
        Ok(out)
    }

    pub(super) fn create_dirs(root: &Path, relative: &str) -> Option<io::Result<()>> {
        let mut done = String::new();
        for name in relative.split('/').filter(|n| !n.is_empty() && *n != ".") {
            let parent = match beneath(root, &done, OFlags::PATH | OFlags::DIRECTORY)? {
                Ok(parent) => parent,
                Err(error) => return Some(Err(error)),
            };
            match rustix::fs::mkdirat(&parent, name, Mode::from_raw_mode(0o755)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(error) => return Some(Err(error.into())),
            }
            if !done.is_empty() {
                done.push('/');
            }
            done.push_str(name);
        }
        // What exists there now must be a directory reached beneath the root.
        beneath(root, &done, OFlags::PATH | OFlags::DIRECTORY).map(|r| r.map(drop))
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::fs::File;
    use std::io;
    use std::path::Path;

    use super::{Access, Entry};

    pub(super) fn open(_: &Path, _: &str, _: Access) -> Option<io::Result<File>> {
        None
    }

    pub(super) fn read_dir(_: &Path, _: &str) -> Option<io::Result<Vec<Entry>>> {
        None
    }

    pub(super) fn create_dirs(_: &Path, _: &str) -> Option<io::Result<()>> {
        None
    }
}

/// Opens `relative` (a normalized workspace path, `""` for the root) under the
/// canonical `root`; `checked` is the same path as resolved and checked before, used
/// only where the kernel cannot resolve beneath a directory.
///
/// # Errors
/// The open's error; [`left_the_root`] tells an escape refused by the kernel.
pub(crate) fn open(
    root: &Path,
    relative: &str,
    checked: &Path,
    access: Access,
) -> io::Result<File> {
    imp::open(root, relative, access).unwrap_or_else(|| {
        let mut options = std::fs::OpenOptions::new();
        match access {
            Access::Read => options.read(true),
            Access::Replace => options.write(true).create(true).truncate(true),
            Access::Append => options.append(true).create(true),
        };
        options.open(checked)
    })
}

/// The entries of the directory `relative` under `root`, in name order, examined
/// through the directory's handle (links are reported, never followed).
///
/// # Errors
/// Opening or reading the directory failed; [`left_the_root`] tells an escape.
pub(crate) fn read_dir(root: &Path, relative: &str, checked: &Path) -> io::Result<Vec<Entry>> {
    let mut entries = imp::read_dir(root, relative).unwrap_or_else(|| read_checked(checked))?;
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// The same through the checked path, where the kernel cannot resolve beneath.
fn read_checked(checked: &Path) -> io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    for child in std::fs::read_dir(checked)? {
        let child = child?;
        let meta = std::fs::symlink_metadata(child.path()).ok();
        let kind = match meta.as_ref().map(std::fs::Metadata::file_type) {
            Some(t) if t.is_dir() => Kind::Dir,
            Some(t) if t.is_file() => Kind::File,
            Some(t) if t.is_symlink() => Kind::Link,
            _ => Kind::Other,
        };
        out.push(Entry {
            name: child.file_name().to_string_lossy().into_owned(),
            kind,
            size: meta.filter(|_| kind == Kind::File).map(|m| m.len()),
            target: std::fs::read_link(child.path())
                .ok()
                .map(|t| t.to_string_lossy().into_owned()),
        });
    }
    Ok(out)
}

/// Creates `relative` and its missing parents under `root`, one directory at a time,
/// each created beneath the root (like `mkdir -p`).
///
/// # Errors
/// The failing step's error; [`left_the_root`] tells an escape refused by the kernel.
pub(crate) fn create_dirs(root: &Path, relative: &str, checked: &Path) -> io::Result<()> {
    imp::create_dirs(root, relative).unwrap_or_else(|| std::fs::create_dir_all(checked))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_refuses_every_way_out_of_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(dir.path().join("secret"), "outside").unwrap();
        std::fs::write(root.join("inside.txt"), "inside").unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("up")).unwrap();
        std::os::unix::fs::symlink("inside.txt", root.join("alias")).unwrap();
        let checked = root.join("unused");
        for (path, ok) in [
            ("inside.txt", true),
            ("alias", true),
            ("up/secret", false),
            ("../secret", false),
        ] {
            let result = open(&root, path, &checked, Access::Read);
            assert_eq!(result.is_ok(), ok, "{path}: {result:?}");
            if let Err(error) = result {
                assert!(left_the_root(&error), "{path}: {error}");
            }
        }
        let error = create_dirs(&root, "up/made", &checked).unwrap_err();
        assert!(left_the_root(&error), "{error}");
        assert!(!dir.path().join("made").exists());
        create_dirs(&root, "a/b/c", &checked).unwrap();
        assert!(root.join("a/b/c").is_dir());
        let error = open(&root, "up/new.txt", &checked, Access::Replace).unwrap_err();
        assert!(left_the_root(&error), "{error}");
        assert!(!dir.path().join("new.txt").exists());
    }
}
