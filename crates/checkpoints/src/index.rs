//! The workspace index: each regular file's stamp (size, modification time, inode),
//! read by walking the tree through the confined file system.

use std::collections::BTreeMap;

use smallebot_confined::{ConfinedError, FileKind, Root};

use crate::error::{CheckpointError, workspace};
use crate::ignore_rules::IgnoreRules;
use crate::watched::Watched;

/// What tells a changed file from an unchanged one without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub modified_ns: i64,
    /// Inode number (a file replaced by a rename has another).
    pub inode: u64,
}

/// How deep a scan goes; deeper folders are left out (a tree that deep is not a
/// project's source).
const MAX_DEPTH: usize = 64;

/// The stamps of every regular file beneath the folder `start` of `root` (`""`: the
/// whole tree) that `rules` keep, by path relative to the root (`/`-separated). Links,
/// pipes, sockets and devices are not files: they are neither followed nor listed.
/// With `watched`, each folder is watched before it is listed; when a watch cannot be
/// added, `watched` is dropped (notices no longer cover the tree).
///
/// # Errors
/// [`CheckpointError::Workspace`] when a folder cannot be listed (a folder beneath the
/// root that is gone, or is no folder any more, has nothing to list).
pub(crate) fn scan(
    root: &Root,
    rules: &IgnoreRules,
    start: &str,
    watched: &mut Option<Watched>,
) -> Result<BTreeMap<String, Stamp>, CheckpointError> {
    let mut stamps = BTreeMap::new();
    let depth = if start.is_empty() {
        0
    } else {
        start.split('/').count()
    };
    let mut folders = vec![(start.to_owned(), depth)];
    while let Some((folder, depth)) = folders.pop() {
        if let Some(watch) = watched.as_mut()
            && !watch.add(root, &folder)
        {
            *watched = None;
        }
        let listed = if folder.is_empty() {
            root.read_dir(".")
        } else {
            root.read_dir(&folder)
        };
        let entries = match listed {
            Ok(entries) => entries,
            // Removed or replaced between its parent's listing (or its notice) and
            // now: nothing to index there.
            Err(
                ConfinedError::NotFound { .. }
                | ConfinedError::NotDirectory { .. }
                | ConfinedError::Link { .. },
            ) if !folder.is_empty() => continue,
            Err(err) => return Err(workspace("list the workspace")(err)),
        };
        for entry in entries {
            let path = if folder.is_empty() {
                entry.name
            } else {
                format!("{folder}/{}", entry.name)
            };
            match entry.kind {
                FileKind::Dir if depth < MAX_DEPTH && !rules.ignores(&path, true) => {
                    folders.push((path, depth + 1));
                }
                FileKind::File if !rules.ignores(&path, false) => {
                    if let (Some(size), Some(modified_ns), Some(inode)) =
                        (entry.size, entry.modified_ns, entry.inode)
                    {
                        stamps.insert(
                            path,
                            Stamp {
                                size,
                                modified_ns,
                                inode,
                            },
                        );
                    }
                }
                _ => {}
            }
        }
    }
    Ok(stamps)
}

/// Whether the folder `path` is one a scan enters (not ignored, not too deep).
pub(crate) fn entered(rules: &IgnoreRules, path: &str) -> bool {
    path.split('/').count() <= MAX_DEPTH && !rules.ignores(path, true)
}

/// The stamp of the one file `path`, when it is a regular file `rules` keep; `None`
/// when it is gone, is no regular file, or lies where it cannot be reached without a
/// link.
pub(crate) fn stamp_of(root: &Root, rules: &IgnoreRules, path: &str) -> Option<Stamp> {
    if rules.ignores(path, false) {
        return None;
    }
    let meta = root.symlink_metadata(path).ok()?;
    meta.is_file().then_some(Stamp {
        size: meta.len,
        modified_ns: meta.modified_ns,
        inode: meta.inode,
    })
}
