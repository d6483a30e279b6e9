//! Restoring paths to their state before a turn, through the confined file system,
//! with conflicts listed and what is replaced kept first.

use std::io::Write as _;

use smallebot_confined::{Access, ConfinedError, Root};
use smallebot_core::rules::checkpoint::{FileState, RestoreStep, restore_step};

use crate::capture::{Capture, Workspace, digest};
use crate::error::{CheckpointError, workspace};
use crate::store::ContentStore;
use crate::targets::RestoreTarget;

/// A path a restore left alone, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The path, relative to the workspace.
    pub path: String,
    /// Why it was left alone.
    pub reason: String,
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreReport {
    /// Changes found before restoring that no capture had seen (someone else's edits
    /// since the last one); kept, like any capture.
    pub found_before: Capture,
    /// The paths brought back, in path order.
    pub restored: Vec<String>,
    /// The paths left alone.
    pub conflicts: Vec<Conflict>,
    /// What the restore itself changed: restoring these undoes the restore.
    pub undo: Capture,
}

/// What is at a path now.
enum Current {
    File(FileState),
    Absent,
    /// Something a restore never replaces, with the reason.
    Untouchable(String),
}

/// Brings each of `targets` back to its wanted state. A path whose content is not what
/// the undone turns left is a conflict: listed and left alone unless `force`. A path
/// holding something other than a regular file, or a file whose content cannot be kept
/// first, is never replaced. The workspace is captured before (so every current
/// content is kept) and after (the restore's own changes, its undo).
///
/// A path that cannot be written or removed (a content no longer kept, a folder in
/// the way) is listed with the reason and the others are restored all the same.
///
/// # Errors
/// [`CheckpointError::Workspace`] when the workspace cannot be listed or a file read;
/// [`CheckpointError::Store`] when a current content cannot be kept.
pub fn restore(
    workspace_: &mut Workspace,
    store: &dyn ContentStore,
    targets: &[RestoreTarget],
    force: bool,
) -> Result<RestoreReport, CheckpointError> {
    let found_before = workspace_.capture(store)?;
    let mut report = RestoreReport {
        found_before,
        ..RestoreReport::default()
    };
    let limit = workspace_.limits().file_bytes;
    let root = workspace_.root();
    for target in targets {
        let current = match current(root, &target.path, limit, store)? {
            Current::Untouchable(reason) => {
                report.conflicts.push(Conflict {
                    path: target.path.clone(),
                    reason,
                });
                continue;
            }
            Current::File(state) => Some(state),
            Current::Absent => None,
        };
        let step = restore_step(
            target.wanted.as_ref(),
            target.left.as_ref(),
            current.as_ref(),
        );
        let step = match step {
            RestoreStep::Nothing => continue,
            RestoreStep::Conflict { then } if force => *then,
            RestoreStep::Conflict { .. } => {
                report.conflicts.push(Conflict {
                    path: target.path.clone(),
                    reason: "changed since the turn (its content is not what the turn left); \
                             left as it is — force the restore to replace it"
                        .to_owned(),
                });
                continue;
            }
            step => step,
        };
        match apply(root, store, &target.path, &step) {
            Ok(()) => report.restored.push(target.path.clone()),
            Err(err) => report.conflicts.push(Conflict {
                path: target.path.clone(),
                reason: format!("could not be restored: {err}"),
            }),
        }
    }
    report.undo = workspace_.capture(store)?;
    Ok(report)
}

/// What is at `path` now; a file's content is kept before anything replaces it.
fn current(
    root: &Root,
    path: &str,
    limit: u64,
    store: &dyn ContentStore,
) -> Result<Current, CheckpointError> {
    match root.read(path, limit) {
        Ok(bytes) => {
            let state = FileState {
                sha256: digest(&bytes),
                size: bytes.len() as u64,
            };
            store.put(&state.sha256, &bytes)?;
            Ok(Current::File(state))
        }
        Err(ConfinedError::NotFound { .. }) => Ok(Current::Absent),
        Err(ConfinedError::TooLarge { size, limit, .. }) => Ok(Current::Untouchable(format!(
            "its {size} bytes are over the per-file limit of {limit}, so it could not be kept \
             before being replaced; left as it is"
        ))),
        Err(
            err @ (ConfinedError::NotRegular { .. }
            | ConfinedError::NotDirectory { .. }
            | ConfinedError::Link { .. }
            | ConfinedError::Escape { .. }
            | ConfinedError::Loop { .. }),
        ) => Ok(Current::Untouchable(format!(
            "{err}; a restore replaces only regular files, so it was left as it is"
        ))),
        Err(err) => Err(workspace("read a file to restore")(err)),
    }
}

/// Carries out one step at `path`.
fn apply(
    root: &Root,
    store: &dyn ContentStore,
    path: &str,
    step: &RestoreStep,
) -> Result<(), CheckpointError> {
    match step {
        RestoreStep::Nothing | RestoreStep::Conflict { .. } => Ok(()),
        RestoreStep::Remove => match root.remove_file(path) {
            Ok(()) | Err(ConfinedError::NotFound { .. }) => Ok(()),
            Err(err) => Err(workspace("remove a file the turn created")(err)),
        },
        RestoreStep::Write(state) => {
            let bytes = store
                .get(&state.sha256)?
                .ok_or_else(|| CheckpointError::Missing {
                    path: path.to_owned(),
                    digest: state.sha256.clone(),
                })?;
            write(root, path, &bytes)
        }
    }
}

/// Writes `bytes` at `path` through a temporary file beside it, renamed over it.
fn write(root: &Root, path: &str, bytes: &[u8]) -> Result<(), CheckpointError> {
    let (parent, name) = path.rsplit_once('/').map_or(("", path), |(p, n)| (p, n));
    if !parent.is_empty() {
        root.create_dirs(parent)
            .map_err(workspace("make the folder of a restored file"))?;
    }
    let temporary = if parent.is_empty() {
        format!(".{name}.restoring")
    } else {
        format!("{parent}/.{name}.restoring")
    };
    let result = root
        .open_file(&temporary, Access::Replace)
        .and_then(|mut file| {
            file.write_all(bytes)
                .and_then(|()| file.sync_all())
                .map_err(|source| ConfinedError::Io {
                    action: "write",
                    path: temporary.clone(),
                    source,
                })
        })
        .and_then(|()| root.rename(&temporary, path));
    result.map_err(|err| {
        let _ = root.remove_file(&temporary);
        workspace("write a restored file")(err)
    })
}
