//! [`Workspace`]: the index kept between tool calls, and a capture — what changed
//! since the last one, with every new content kept.

use std::collections::BTreeMap;
use std::path::Path;

use sha2::{Digest, Sha256};
use smallebot_confined::{ConfinedError, Links, Root};
use smallebot_core::rules::checkpoint::{ChangeKind, FileChange, FileState, classify};

use crate::error::{CheckpointError, workspace};
use crate::ignore_rules::IgnoreRules;
use crate::index::{Stamp, scan};
use crate::limits::Limits;
use crate::store::ContentStore;

/// A change whose content could not be kept, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotCaptured {
    /// The path, relative to the workspace.
    pub path: String,
    /// What happened to it.
    pub kind: ChangeKind,
    /// Why its content (before or after) is not kept.
    pub reason: String,
}

/// What changed since the previous capture.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capture {
    /// The changes whose contents are kept on both sides, in path order.
    pub changes: Vec<FileChange>,
    /// The changes a restore cannot undo, with the reason.
    pub not_captured: Vec<NotCaptured>,
}

impl Capture {
    /// Whether nothing changed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.not_captured.is_empty()
    }
}

/// What the index knows of a file's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Content {
    /// Hashed and kept.
    Kept(FileState),
    /// Not kept, for this reason.
    NotKept(String),
}

/// One indexed file.
#[derive(Debug, Clone)]
struct Indexed {
    stamp: Stamp,
    content: Content,
    /// Modified so shortly before it was read that a change in the same tick of the
    /// file system's clock would leave its stamp as it is: read again next time.
    racy: bool,
}

/// How recent a modification makes a file racy (file system clocks tick in a few
/// milliseconds locally, in up to two seconds on some network file systems).
const RACY_NS: i64 = 2_000_000_000;

/// Now, in nanoseconds since the Unix epoch (0 if the clock is before it).
fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// A workspace under checkpoints: a confined handle on its root (links never
/// followed), its ignore rules and limits, and the index kept between captures.
#[derive(Debug)]
pub struct Workspace {
    root: Root,
    rules: IgnoreRules,
    limits: Limits,
    index: BTreeMap<String, Indexed>,
}

impl Workspace {
    /// The workspace at `path`, with an empty index ([`Workspace::baseline`] fills it).
    ///
    /// # Errors
    /// [`CheckpointError::Workspace`] when it is not a folder that can be opened.
    pub fn open(path: &Path, rules: IgnoreRules, limits: Limits) -> Result<Self, CheckpointError> {
        let root = Root::open(path, Links::Refuse).map_err(workspace("open the workspace"))?;
        Ok(Self {
            root,
            rules,
            limits,
            index: BTreeMap::new(),
        })
    }

    /// The confined handle on the workspace.
    #[must_use]
    pub fn root(&self) -> &Root {
        &self.root
    }

    /// The limits.
    #[must_use]
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// How many files the index holds.
    #[must_use]
    pub fn indexed(&self) -> usize {
        self.index.len()
    }

    /// Indexes the whole workspace and keeps every content within the limits, without
    /// reporting changes; what could not be kept is returned.
    ///
    /// # Errors
    /// As [`Workspace::capture`].
    pub fn baseline(
        &mut self,
        store: &dyn ContentStore,
    ) -> Result<Vec<NotCaptured>, CheckpointError> {
        self.index.clear();
        let capture = self.capture(store)?;
        Ok(capture.not_captured)
    }

    /// Scans the workspace, hashes only the files whose stamp changed since the last
    /// capture (or that were modified within two seconds of being read: their next
    /// change could keep the stamp), keeps their new contents in `store` and returns the changes.
    ///
    /// # Errors
    /// [`CheckpointError::Workspace`] when a folder cannot be listed or a file read;
    /// [`CheckpointError::Store`] when a content cannot be kept.
    pub fn capture(&mut self, store: &dyn ContentStore) -> Result<Capture, CheckpointError> {
        let racy_after = now_ns().saturating_sub(RACY_NS);
        let stamps = scan(&self.root, &self.rules)?;
        let mut budget = self.limits.capture_bytes;
        let mut before = BTreeMap::new();
        let mut after = BTreeMap::new();
        let mut not_captured = Vec::new();
        let mut next = BTreeMap::new();
        for (path, stamp) in &stamps {
            let old = self.index.get(path);
            if let Some(old) = old.filter(|old| old.stamp == *stamp && !old.racy) {
                next.insert(path.clone(), old.clone());
                continue;
            }
            let Some(content) = self.read(path, store, &mut budget)? else {
                continue; // gone since the scan: absent, as if never seen
            };
            let was = old.map(|old| old.content.clone());
            // The same kept content is no change; a content not kept cannot be compared,
            // so a changed stamp is a change.
            let same =
                matches!((&was, &content), (Some(Content::Kept(a)), Content::Kept(b)) if a == b);
            if !same {
                sort_change(
                    path,
                    was,
                    Some(content.clone()),
                    &mut before,
                    &mut after,
                    &mut not_captured,
                );
            }
            next.insert(
                path.clone(),
                Indexed {
                    stamp: *stamp,
                    content,
                    racy: stamp.modified_ns >= racy_after,
                },
            );
        }
        for (path, old) in &self.index {
            if !stamps.contains_key(path) {
                sort_change(
                    path,
                    Some(old.content.clone()),
                    None,
                    &mut before,
                    &mut after,
                    &mut not_captured,
                );
            }
        }
        self.index = next;
        Ok(Capture {
            changes: classify(&before, &after),
            not_captured,
        })
    }

    /// Hashes the file `path` and keeps its content; `None` when it is gone.
    fn read(
        &self,
        path: &str,
        store: &dyn ContentStore,
        budget: &mut u64,
    ) -> Result<Option<Content>, CheckpointError> {
        let bytes = match self.root.read(path, self.limits.file_bytes) {
            Ok(bytes) => bytes,
            Err(ConfinedError::NotFound { .. }) => return Ok(None),
            Err(ConfinedError::TooLarge { size, limit, .. }) => {
                return Ok(Some(Content::NotKept(format!(
                    "{size} bytes, over the per-file limit of {limit} bytes"
                ))));
            }
            // Replaced by a link, pipe or folder since the scan: not a file any more.
            Err(
                err @ (ConfinedError::NotRegular { .. }
                | ConfinedError::NotDirectory { .. }
                | ConfinedError::Link { .. }
                | ConfinedError::Escape { .. }
                | ConfinedError::Loop { .. }),
            ) => {
                drop(err);
                return Ok(None);
            }
            Err(err) => return Err(workspace("read a workspace file")(err)),
        };
        let state = FileState {
            sha256: digest(&bytes),
            size: bytes.len() as u64,
        };
        if !store.has(&state.sha256)? {
            if state.size > *budget {
                return Ok(Some(Content::NotKept(format!(
                    "the checkpoint's limit of {} bytes of new content was reached",
                    self.limits.capture_bytes
                ))));
            }
            store.put(&state.sha256, &bytes)?;
            *budget -= state.size;
        }
        Ok(Some(Content::Kept(state)))
    }
}

/// The SHA-256 of `bytes` in lowercase hex.
pub(crate) fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for byte in hash {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

/// Files a changed path under the maps `classify` reads, or as not captured when a
/// side's content is not kept.
fn sort_change(
    path: &str,
    was: Option<Content>,
    now: Option<Content>,
    before: &mut BTreeMap<String, Option<FileState>>,
    after: &mut BTreeMap<String, Option<FileState>>,
    not_captured: &mut Vec<NotCaptured>,
) {
    let reason = [&was, &now].into_iter().find_map(|side| match side {
        Some(Content::NotKept(reason)) => Some(reason.clone()),
        _ => None,
    });
    if let Some(reason) = reason {
        let kind = match (&was, &now) {
            (None, _) => ChangeKind::Created,
            (_, None) => ChangeKind::Deleted,
            _ => ChangeKind::Modified,
        };
        not_captured.push(NotCaptured {
            path: path.to_owned(),
            kind,
            reason,
        });
        return;
    }
    let kept = |side: Option<Content>| match side {
        Some(Content::Kept(state)) => Some(state),
        _ => None,
    };
    before.insert(path.to_owned(), kept(was));
    after.insert(path.to_owned(), kept(now));
}
