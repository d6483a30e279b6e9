//! [`Workspace`]: the index kept between tool calls, and a capture — what changed
//! since the last one, with every new content kept.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::ops::Bound;
use std::path::Path;

use sha2::{Digest, Sha256};
use smallebot_confined::{ConfinedError, Links, Root};
use smallebot_core::rules::checkpoint::{ChangeKind, FileChange, FileState, classify};

use crate::error::{CheckpointError, workspace};
use crate::ignore_rules::IgnoreRules;
use crate::index::{Stamp, entered, scan, stamp_of};
use crate::limits::Limits;
use crate::store::ContentStore;
use crate::watched::{Changed, Watched};

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
    /// The folders under change notifications, while they cover the whole index.
    watched: Option<Watched>,
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
            watched: None,
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
        self.watched = None;
        let capture = self.capture(store)?;
        Ok(capture.not_captured)
    }

    /// What changed since the last capture, with every new content kept in `store`.
    ///
    /// Where the system gives change notifications (Linux), only what they name is
    /// examined: the files written, created or removed, and the folders created,
    /// removed or moved. Otherwise — and whenever the notices cannot be trusted — the
    /// whole tree is scanned and compared with the index. Either way a file is hashed
    /// only when its stamp changed (or it was modified within two seconds of being
    /// read: its next change could keep the stamp).
    ///
    /// # Errors
    /// [`CheckpointError::Workspace`] when a folder cannot be listed or a file read;
    /// [`CheckpointError::Store`] when a content cannot be kept.
    pub fn capture(&mut self, store: &dyn ContentStore) -> Result<Capture, CheckpointError> {
        let mut found = Found::new(self.limits.capture_bytes, now_ns().saturating_sub(RACY_NS));
        match self.watched.as_mut().and_then(Watched::changed) {
            Some(changed) => self.capture_changed(changed, store, &mut found)?,
            None => self.capture_all(store, &mut found)?,
        }
        Ok(Capture {
            changes: classify(&found.before, &found.after),
            not_captured: found.not_captured,
        })
    }

    /// Scans the whole tree (watching it afresh) and compares it with the index.
    fn capture_all(
        &mut self,
        store: &dyn ContentStore,
        found: &mut Found,
    ) -> Result<(), CheckpointError> {
        let mut watched = Watched::start();
        let stamps = scan(&self.root, &self.rules, "", &mut watched)?;
        let mut old = std::mem::take(&mut self.index);
        for (path, stamp) in stamps {
            let was = old.remove(&path);
            if let Some(entry) = self.examine(&path, Some(stamp), was, true, store, found)? {
                self.index.insert(path, entry);
            }
        }
        for (path, was) in old {
            self.examine(&path, None, Some(was), true, store, found)?;
        }
        self.watched = watched;
        Ok(())
    }

    /// Examines only what the notices named: the files, and the subtrees of the
    /// folders (listed and watched again).
    fn capture_changed(
        &mut self,
        changed: Changed,
        store: &dyn ContentStore,
        found: &mut Found,
    ) -> Result<(), CheckpointError> {
        let mut now: BTreeMap<String, Option<Stamp>> = BTreeMap::new();
        for folder in &changed.folders {
            let prefix = format!("{folder}/");
            let indexed = self
                .index
                .range::<str, _>((Bound::Included(prefix.as_str()), Bound::Unbounded))
                .take_while(|(path, _)| path.starts_with(&prefix));
            now.extend(indexed.map(|(path, _)| (path.clone(), None)));
            if let Some(watched) = self.watched.as_mut() {
                watched.forget_under(folder);
            }
            if entered(&self.rules, folder) {
                let stamps = scan(&self.root, &self.rules, folder, &mut self.watched)?;
                now.extend(stamps.into_iter().map(|(path, stamp)| (path, Some(stamp))));
            }
        }
        for file in changed.files {
            if let Entry::Vacant(slot) = now.entry(file) {
                let stamp = stamp_of(&self.root, &self.rules, slot.key());
                slot.insert(stamp);
            }
        }
        for (path, stamp) in now {
            let was = self.index.remove(&path);
            // Named by a notice: read whatever its stamp says (a write can keep it).
            if let Some(entry) = self.examine(&path, stamp, was, false, store, found)? {
                self.index.insert(path, entry);
            }
        }
        Ok(())
    }

    /// Compares `path` as it is now (`stamp`; `None`: no file there) with what the
    /// index held (`was`), files the change in `found` and returns its new entry. With
    /// `trust_stamp`, an unchanged stamp of a file that was not recent is no change.
    fn examine(
        &self,
        path: &str,
        stamp: Option<Stamp>,
        was: Option<Indexed>,
        trust_stamp: bool,
        store: &dyn ContentStore,
        found: &mut Found,
    ) -> Result<Option<Indexed>, CheckpointError> {
        if let (Some(stamp), Some(was)) = (stamp, was.as_ref())
            && trust_stamp
            && was.stamp == stamp
            && !was.racy
        {
            return Ok(Some(was.clone()));
        }
        let content = match stamp {
            Some(_) => self.read(path, store, &mut found.budget)?,
            None => None,
        };
        let was = was.map(|was| was.content);
        // The same kept content is no change; a content not kept cannot be compared,
        // so a changed stamp is a change.
        let same =
            matches!((&was, &content), (Some(Content::Kept(a)), Some(Content::Kept(b))) if a == b);
        if !same && (was.is_some() || content.is_some()) {
            sort_change(path, was, content.clone(), found);
        }
        Ok(match (stamp, content) {
            (Some(stamp), Some(content)) => Some(Indexed {
                stamp,
                content,
                racy: stamp.modified_ns >= found.racy_after,
            }),
            // Gone since it was stamped: absent.
            _ => None,
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

/// What a capture found so far.
struct Found {
    /// Each changed path's kept state before (`None`: absent).
    before: BTreeMap<String, Option<FileState>>,
    /// Each changed path's kept state after (`None`: absent).
    after: BTreeMap<String, Option<FileState>>,
    /// The changes whose contents are not kept.
    not_captured: Vec<NotCaptured>,
    /// Bytes of new content the capture may still keep.
    budget: u64,
    /// Files modified at or after this time (ns) are read again next time.
    racy_after: i64,
}

impl Found {
    fn new(budget: u64, racy_after: i64) -> Self {
        Self {
            before: BTreeMap::new(),
            after: BTreeMap::new(),
            not_captured: Vec::new(),
            budget,
            racy_after,
        }
    }
}

/// Files a changed path under the maps `classify` reads, or as not captured when a
/// side's content is not kept.
fn sort_change(path: &str, was: Option<Content>, now: Option<Content>, found: &mut Found) {
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
        found.not_captured.push(NotCaptured {
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
    found.before.insert(path.to_owned(), kept(was));
    found.after.insert(path.to_owned(), kept(now));
}
