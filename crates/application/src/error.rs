//! The application's error type.

use smallebot_core::RepositoryError;
use smallebot_core::ids::ConversationId;

/// Why a pipeline operation could not run. Model failures during a turn are not
/// errors of `send`: the turn is stored as failed and reported as a [`crate::TurnOutcome`].
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A turn is already running in this conversation.
    #[error(
        "conversation {0} is busy: a turn is still running. Wait for it to finish or cancel it first."
    )]
    Busy(ConversationId),
    /// The named entity does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The request was refused (e.g. empty message).
    #[error("{0}")]
    Invalid(String),
    /// Storage failed.
    #[error(transparent)]
    Repository(#[from] RepositoryError),
}
