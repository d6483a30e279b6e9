//! [`TurnCheckpoints`]: the application's `WorkspaceChanges` port on a workspace under
//! checkpoints, its contents kept by the conversation store.
//!
//! The index lives in memory for as long as the service does: the first comparison of
//! a process indexes the whole workspace and keeps every content within the limits
//! (no changes reported), later ones read only what changed. Every comparison runs on
//! tokio's blocking pool (it reads files), one at a time per workspace.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use smallebot_application::ports::{WorkspaceChanges, WorkspaceChangesError};
use smallebot_confined::{Links, Root};
use smallebot_core::entities::TurnFileChange;
use smallebot_core::ids::TurnId;
use smallebot_core::repository::CheckpointRepository;
use tokio::runtime::Handle;

use crate::capture::{Capture, Workspace};
use crate::error::CheckpointError;
use crate::ignore_rules::IgnoreRules;
use crate::limits::Limits;
use crate::prune::prune_logged;
use crate::settings::Retention;
use crate::store::ContentStore;

/// How often at most a service prunes checkpoint contents after a turn that changed
/// files: often enough that a home running for days stays near its limits, rarely
/// enough that listing every kept content costs nothing a person notices.
pub const PRUNE_EVERY: Duration = Duration::from_secs(60 * 60);

/// The largest workspace `.gitignore` read for the ignore rules.
const GITIGNORE_MAX_BYTES: u64 = 1024 * 1024;

/// A [`ContentStore`] on a conversation store's checkpoint contents, for the blocking
/// code of a capture: each call waits for the store on the runtime of `handle`.
pub struct RepositoryContents {
    store: Arc<dyn CheckpointRepository>,
    handle: Handle,
}

impl RepositoryContents {
    /// Contents kept by `store`, waited for on `handle`'s runtime (call its methods
    /// only from a thread that is not one of that runtime's workers, such as the
    /// blocking pool's).
    #[must_use]
    pub fn new(store: Arc<dyn CheckpointRepository>, handle: Handle) -> Self {
        Self { store, handle }
    }
}

/// A [`CheckpointError::Store`] from a repository error.
fn store_failed(
    action: &'static str,
    digest: &str,
) -> impl FnOnce(smallebot_core::RepositoryError) -> CheckpointError {
    move |err| CheckpointError::Store {
        action,
        digest: digest.to_owned(),
        message: err.to_string(),
    }
}

impl ContentStore for RepositoryContents {
    fn has(&self, sha256: &str) -> Result<bool, CheckpointError> {
        self.handle
            .block_on(self.store.has_checkpoint_content(sha256))
            .map_err(store_failed("look up", sha256))
    }

    fn put(&self, sha256: &str, bytes: &[u8]) -> Result<(), CheckpointError> {
        self.handle
            .block_on(self.store.put_checkpoint_content(sha256, bytes))
            .map_err(store_failed("keep", sha256))
    }

    fn get(&self, sha256: &str) -> Result<Option<Vec<u8>>, CheckpointError> {
        self.handle
            .block_on(self.store.checkpoint_content(sha256))
            .map_err(store_failed("read", sha256))
    }
}

/// Opens the workspace at `path` under the default ignore rules and its own
/// top-level `.gitignore`.
///
/// # Errors
/// [`CheckpointError::Workspace`] when it cannot be opened; an ignore rule of its
/// `.gitignore` that is not valid.
pub fn open_workspace(path: &Path, limits: Limits) -> Result<Workspace, CheckpointError> {
    open_workspace_with(path, limits, &[])
}

/// As [`open_workspace`], with the extra ignore rules `ignore` (agent.json's
/// `checkpoints.ignore`) between the defaults and the workspace's `.gitignore`.
///
/// # Errors
/// As [`open_workspace`]; an extra rule that is not valid.
pub fn open_workspace_with(
    path: &Path,
    limits: Limits,
    ignore: &[String],
) -> Result<Workspace, CheckpointError> {
    let root =
        Root::open(path, Links::Refuse).map_err(crate::error::workspace("open the workspace"))?;
    let gitignore = root
        .read(".gitignore", GITIGNORE_MAX_BYTES)
        .ok()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let rules = IgnoreRules::with_defaults(ignore, gitignore.as_deref())?;
    Workspace::open(path, rules, limits)
}

/// The workspace a service's tools work in, under checkpoints; contents kept by the
/// conversation store.
pub struct TurnCheckpoints {
    path: PathBuf,
    limits: Limits,
    /// Extra ignore rules (agent.json's `checkpoints.ignore`).
    ignore: Arc<[String]>,
    store: Arc<dyn CheckpointRepository>,
    /// The workspace and its index, once the first comparison opened it.
    workspace: Arc<Mutex<Option<Workspace>>>,
    /// The retention pruned after turns, if any; and when this service last pruned.
    retention: Option<(Retention, Duration)>,
    last_pruned: Arc<Mutex<Instant>>,
}

impl TurnCheckpoints {
    /// Checkpoints of the workspace at `path` (opened at the first comparison: it may
    /// not exist yet), contents kept by `store`.
    #[must_use]
    pub fn new(path: PathBuf, limits: Limits, store: Arc<dyn CheckpointRepository>) -> Self {
        Self {
            path,
            limits,
            ignore: Arc::from(Vec::new()),
            store,
            workspace: Arc::new(Mutex::new(None)),
            retention: None,
            last_pruned: Arc::new(Mutex::new(Instant::now())),
        }
    }

    /// The same, leaving out also what the `.gitignore`-style rules `ignore` match.
    #[must_use]
    pub fn with_ignore(mut self, ignore: Vec<String>) -> Self {
        self.ignore = Arc::from(ignore);
        self
    }

    /// The same, pruning contents by `retention` after a turn that changed files, at
    /// most once every `every` ([`PRUNE_EVERY`]: the process prunes when it starts;
    /// this keeps a `serve` that runs for weeks within the limits too).
    #[must_use]
    pub fn with_retention(mut self, retention: Retention, every: Duration) -> Self {
        self.retention = Some((retention, every));
        self
    }

    /// Prunes when `every` has passed since the last prune (or this service's start). A failure is logged, not
    /// returned: the turn's changes are stored all the same. When contents went, the
    /// index is dropped, so that the next comparison indexes the workspace afresh and
    /// keeps again the current contents of files no change named for a long time.
    async fn prune_when_due(&self) {
        let Some((retention, every)) = self.retention else {
            return;
        };
        {
            let mut last = self
                .last_pruned
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if last.elapsed() < every {
                return;
            }
            *last = Instant::now();
        }
        if prune_logged(self.store.as_ref(), retention, "after a turn").await > 0 {
            *self
                .workspace
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = None;
        }
    }

    /// Compares the workspace with its index on the blocking pool; the first time,
    /// indexes it without reporting changes.
    async fn compare(&self) -> Result<Capture, WorkspaceChangesError> {
        let (path, limits, ignore) = (self.path.clone(), self.limits, Arc::clone(&self.ignore));
        let workspace = Arc::clone(&self.workspace);
        let contents = RepositoryContents::new(Arc::clone(&self.store), Handle::current());
        let compared = tokio::task::spawn_blocking(move || {
            let mut held = workspace.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(open) = held.as_mut() {
                return open.capture(&contents);
            }
            // A fresh home's workspace is made by the first tool that works in it: made
            // here first (the configured folder, not a path anyone chose), the first
            // turn is compared like any other.
            Root::create(&path, Links::Refuse)
                .map_err(crate::error::workspace("create the workspace"))?;
            let mut open = open_workspace_with(&path, limits, &ignore)?;
            let not_captured = open.baseline(&contents)?;
            *held = Some(open);
            // What could not be kept at the first look is no change of a turn.
            drop(not_captured);
            Ok(Capture::default())
        })
        .await
        .map_err(|err| WorkspaceChangesError(format!("the comparison stopped: {err}")))?;
        compared.map_err(|err| WorkspaceChangesError(err.to_string()))
    }
}

#[async_trait]
impl WorkspaceChanges for TurnCheckpoints {
    async fn before_calls(&self) -> Result<(), WorkspaceChangesError> {
        self.compare().await.map(drop)
    }

    async fn after_calls(
        &self,
        turn_id: TurnId,
    ) -> Result<Vec<TurnFileChange>, WorkspaceChangesError> {
        let capture = self.compare().await?;
        let changed = !capture.is_empty();
        let changes = turn_changes(turn_id, capture);
        if changed {
            self.prune_when_due().await;
        }
        Ok(changes)
    }
}

/// A capture's changes as the turn `turn_id`'s, in path order (a not-captured change
/// among them).
#[must_use]
pub fn turn_changes(turn_id: TurnId, capture: Capture) -> Vec<TurnFileChange> {
    let mut changes: Vec<TurnFileChange> = capture
        .changes
        .into_iter()
        .map(|change| TurnFileChange::captured(turn_id, change))
        .chain(capture.not_captured.into_iter().map(|missing| {
            TurnFileChange::not_captured(turn_id, &missing.path, missing.kind, &missing.reason)
        }))
        .collect();
    changes.sort_by(|a, b| a.change.path.cmp(&b.change.path));
    changes
}
