//! The system calls under [`Root`](crate::Root), on Unix through rustix: opening a
//! path beneath the root's handle either in one `openat2` call (Linux 5.6 and newer,
//! the kernel refusing every way out) or name by name with `openat` and `O_NOFOLLOW`
//! (older kernels, other systems, or where `openat2` is filtered), never through a
//! path checked beforehand.

use std::ffi::OsStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::kind::{Entry, FileKind, Metadata};
use crate::names::Names;
use crate::{Links, Resolver};

/// A handle on a folder that only serves as the start of lookups.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) const DIR_HANDLE: OFlags = OFlags::PATH.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);
/// A handle on a folder that only serves as the start of lookups.
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) const DIR_HANDLE: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::CLOEXEC);

/// A handle on a file, for its metadata only (never reads, never blocks).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(crate) const STAT_HANDLE: OFlags = OFlags::PATH.union(OFlags::CLOEXEC);
/// A handle on a file, for its metadata only (never reads, never blocks).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) const STAT_HANDLE: OFlags = OFlags::RDONLY
    .union(OFlags::NONBLOCK)
    .union(OFlags::NOCTTY)
    .union(OFlags::CLOEXEC);

/// Where lookups start and how they go.
#[derive(Clone, Copy)]
pub(crate) struct At<'a> {
    pub(crate) root: BorrowedFd<'a>,
    pub(crate) links: Links,
    pub(crate) resolver: Resolver,
}

/// Opens `path` as a root: links in it are followed (it is the caller's own, trusted
/// path).
pub(crate) fn open_root(path: &Path) -> Result<OwnedFd, Errno> {
    rustix::fs::open(path, DIR_HANDLE, Mode::empty())
}

/// Whether the kernel resolves beneath a handle (`openat2`), asked with a harmless
/// lookup of the root itself; any refusal (no such call, a filter) means no.
pub(crate) fn kernel_resolves(root: BorrowedFd<'_>) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        rustix::fs::openat2(
            root,
            ".",
            DIR_HANDLE,
            Mode::empty(),
            rustix::fs::ResolveFlags::BENEATH,
        )
        .is_ok()
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = root;
        false
    }
}

/// Opens `names` beneath the root with `flags` (`mode` when creating).
pub(crate) fn open(at: At<'_>, names: &Names, flags: OFlags, mode: Mode) -> Result<OwnedFd, Errno> {
    let flags = flags | OFlags::CLOEXEC;
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if at.resolver == Resolver::Kernel {
        use rustix::fs::ResolveFlags;
        let resolve = match at.links {
            Links::Refuse => ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS,
            Links::Beneath => ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
        };
        return rustix::fs::openat2(at.root, names.joined(), flags, mode, resolve);
    }
    walk(at.root, names, flags, mode)
}

/// Name by name, never following a link: each folder opened with `O_NOFOLLOW` from
/// the handle of the one before.
fn walk(root: BorrowedFd<'_>, names: &Names, flags: OFlags, mode: Mode) -> Result<OwnedFd, Errno> {
    let Some((parents, last)) = names.split_last() else {
        return rustix::fs::openat(root, ".", flags, mode);
    };
    let mut dir: Option<OwnedFd> = None;
    for name in parents.parts() {
        let from = dir.as_ref().map_or(root, AsFd::as_fd);
        let next = rustix::fs::openat(
            from,
            name.as_os_str(),
            DIR_HANDLE | OFlags::NOFOLLOW,
            Mode::empty(),
        )?;
        // With O_PATH a link may come back as itself: it is not a folder.
        if kind_of(&next)? != FileKind::Dir {
            return Err(Errno::LOOP);
        }
        dir = Some(next);
    }
    let from = dir.as_ref().map_or(root, AsFd::as_fd);
    rustix::fs::openat(from, last, flags | OFlags::NOFOLLOW, mode)
}

/// What an open handle is.
pub(crate) fn kind_of(fd: &OwnedFd) -> Result<FileKind, Errno> {
    Ok(metadata(fd)?.kind)
}

/// An open handle's metadata.
pub(crate) fn metadata(fd: &OwnedFd) -> Result<Metadata, Errno> {
    let stat = rustix::fs::fstat(fd)?;
    Ok(from_stat(&stat))
}

fn from_stat(stat: &rustix::fs::Stat) -> Metadata {
    #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
    Metadata {
        kind: kind(FileType::from_raw_mode(stat.st_mode as _)),
        len: u64::try_from(stat.st_size).unwrap_or(0),
        links: u64::try_from(stat.st_nlink).unwrap_or(u64::MAX),
        inode: stat.st_ino as u64,
        modified_ns: (stat.st_mtime as i64)
            .saturating_mul(1_000_000_000)
            .saturating_add(stat.st_mtime_nsec as i64),
    }
}

fn kind(file_type: FileType) -> FileKind {
    match file_type {
        FileType::RegularFile => FileKind::File,
        FileType::Directory => FileKind::Dir,
        FileType::Symlink => FileKind::Link,
        FileType::Fifo => FileKind::Fifo,
        FileType::Socket => FileKind::Socket,
        FileType::CharacterDevice | FileType::BlockDevice => FileKind::Device,
        FileType::Unknown => FileKind::Other,
    }
}

/// The metadata of `name` in the folder `dir`, the name itself (a link is a link).
pub(crate) fn stat_at(
    dir: BorrowedFd<'_>,
    name: impl rustix::path::Arg,
) -> Result<Metadata, Errno> {
    let stat = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
    Ok(from_stat(&stat))
}

/// Opens the folder `name` in `dir` without following a link.
pub(crate) fn open_child_dir(dir: BorrowedFd<'_>, name: &OsStr) -> Result<OwnedFd, Errno> {
    let fd = rustix::fs::openat(dir, name, DIR_HANDLE | OFlags::NOFOLLOW, Mode::empty())?;
    if kind_of(&fd)? == FileKind::Dir {
        Ok(fd)
    } else {
        Err(Errno::NOTDIR)
    }
}

/// Makes the folder `name` in `dir`; `Ok(false)` when something is there already.
pub(crate) fn mkdir_at(dir: BorrowedFd<'_>, name: &OsStr) -> Result<bool, Errno> {
    match rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o777)) {
        Ok(()) => Ok(true),
        Err(Errno::EXIST) => Ok(false),
        Err(error) => Err(error),
    }
}

/// Renames `from` in `from_dir` to `to` in `to_dir` (names themselves: a link is
/// renamed, never followed).
pub(crate) fn rename_at(
    from_dir: BorrowedFd<'_>,
    from: &OsStr,
    to_dir: BorrowedFd<'_>,
    to: &OsStr,
) -> Result<(), Errno> {
    rustix::fs::renameat(from_dir, from, to_dir, to)
}

/// Removes the file or link `name` (`folder`: the empty folder) from `dir`.
pub(crate) fn unlink_at(
    dir: BorrowedFd<'_>,
    name: impl rustix::path::Arg,
    folder: bool,
) -> Result<(), Errno> {
    let flags = if folder {
        AtFlags::REMOVEDIR
    } else {
        AtFlags::empty()
    };
    rustix::fs::unlinkat(dir, name, flags)
}

/// The entries of the open folder `dir`, each examined through its handle.
pub(crate) fn entries(dir: &OwnedFd) -> Result<Vec<Entry>, Errno> {
    let mut out = Vec::new();
    for entry in Dir::read_from(dir)? {
        let entry = entry?;
        let raw = entry.file_name();
        if raw == c"." || raw == c".." {
            continue;
        }
        let meta = rustix::fs::statat(dir, raw, AtFlags::SYMLINK_NOFOLLOW)
            .ok()
            .map(|s| from_stat(&s));
        let kind = meta.map_or(FileKind::Other, |m| m.kind);
        let target = (kind == FileKind::Link)
            .then(|| rustix::fs::readlinkat(dir, raw, Vec::new()).ok())
            .flatten()
            .map(|t| t.to_string_lossy().into_owned());
        out.push(Entry {
            name: raw.to_string_lossy().into_owned(),
            kind,
            size: meta.filter(|m| m.kind == FileKind::File).map(|m| m.len),
            target,
            inode: meta.map(|m| m.inode),
            modified_ns: meta.map(|m| m.modified_ns),
        });
    }
    Ok(out)
}

/// The raw names in the open folder `dir` (for removing a tree).
fn names_in(dir: &OwnedFd) -> Result<Vec<std::ffi::CString>, Errno> {
    let mut out = Vec::new();
    for entry in Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name != c"." && name != c".." {
            out.push(name.to_owned());
        }
    }
    Ok(out)
}

/// How deep [`remove_tree`] goes before it gives up.
const REMOVE_DEPTH_MAX: usize = 256;

/// Removes `name` from `dir` with everything under it, never following a link (a link
/// is removed as itself); a folder swapped for a link meanwhile stops it.
pub(crate) fn remove_tree(
    dir: BorrowedFd<'_>,
    name: &std::ffi::CStr,
    depth: usize,
) -> Result<(), Errno> {
    if stat_at(dir, name)?.kind != FileKind::Dir {
        return unlink_at(dir, name, false);
    }
    if depth >= REMOVE_DEPTH_MAX {
        return Err(Errno::LOOP);
    }
    let child = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    for inner in names_in(&child)? {
        remove_tree(child.as_fd(), &inner, depth + 1)?;
    }
    unlink_at(dir, name, true)
}
