//! The workspace index: each regular file's stamp (size, modification time, inode),
//! read by walking the tree through the confined file system.

use std::collections::BTreeMap;

use smallebot_confined::{FileKind, Root};

use crate::error::{CheckpointError, workspace};
use crate::ignore_rules::IgnoreRules;

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

/// The stamps of every regular file beneath `root` that `rules` keep, by path relative
/// to the root (`/`-separated). Links, pipes, sockets and devices are not files: they
/// are neither followed nor listed.
///
/// # Errors
/// [`CheckpointError::Workspace`] when a folder cannot be listed.
pub(crate) fn scan(
    root: &Root,
    rules: &IgnoreRules,
) -> Result<BTreeMap<String, Stamp>, CheckpointError> {
    let mut stamps = BTreeMap::new();
    let mut folders = vec![(String::new(), 0usize)];
    while let Some((folder, depth)) = folders.pop() {
        let listed = if folder.is_empty() {
            root.read_dir(".")
        } else {
            root.read_dir(&folder)
        };
        let entries = match listed {
            Ok(entries) => entries,
            // Removed between its parent's listing and now: nothing to index.
            Err(smallebot_confined::ConfinedError::NotFound { .. }) if !folder.is_empty() => {
                continue;
            }
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
