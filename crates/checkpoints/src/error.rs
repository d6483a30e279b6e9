//! What can go wrong while capturing or restoring: one error for the crate.

use smallebot_confined::ConfinedError;

/// Why a checkpoint could not be taken or restored.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// The workspace, or a path beneath it, could not be examined, read or written.
    #[error("checkpoint: {action} failed: {source}")]
    Workspace {
        /// What was being done.
        action: &'static str,
        /// The confined file system's error (it names the path).
        source: ConfinedError,
    },
    /// An ignore rule could not be read.
    #[error(
        "checkpoint ignore rule '{rule}' is not valid .gitignore syntax ({message}); \
         fix or remove it"
    )]
    IgnoreRule {
        /// The rule as written.
        rule: String,
        /// What the parser said.
        message: String,
    },
    /// The content store failed.
    #[error("checkpoint contents: {action} '{digest}' failed: {message}")]
    Store {
        /// What was being done.
        action: &'static str,
        /// The content's SHA-256.
        digest: String,
        /// What went wrong and what to do.
        message: String,
    },
    /// A content a restore needs is not in the store.
    #[error(
        "the content {digest} that '{path}' had is no longer kept (pruned or never \
         captured); that file cannot be restored"
    )]
    Missing {
        /// The path that needed it.
        path: String,
        /// The content's SHA-256.
        digest: String,
    },
    /// A rewind cannot be done as asked; the message says why and what to do.
    #[error("rewind: {0}")]
    Rewind(String),
    /// A turn of the conversation runs: a rewind waits until it has finished.
    #[error("rewind: {0}")]
    Busy(String),
    /// The conversation store failed.
    #[error(transparent)]
    Repository(#[from] smallebot_core::RepositoryError),
}

/// A [`CheckpointError::Workspace`] for `action`.
pub(crate) fn workspace(action: &'static str) -> impl FnOnce(ConfinedError) -> CheckpointError {
    move |source| CheckpointError::Workspace { action, source }
}
