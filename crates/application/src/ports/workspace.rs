//! The workspace-changes port: what a step's tool calls changed in the files of the
//! workspace they work in (checkpoints).

use async_trait::async_trait;
use smallebot_core::entities::TurnFileChange;
use smallebot_core::ids::TurnId;

/// Why the workspace could not be compared; the message names what failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WorkspaceChangesError(pub String);

/// The workspace a service's tools work in, compared before and after the calls that
/// may change it. The pipeline calls [`before_calls`](Self::before_calls) and
/// [`after_calls`](Self::after_calls) around the calls of a step that declare
/// themselves mutating, as one group (a step's calls run concurrently, so which of
/// them changed a file cannot be told; the turn's list is what the group changed). An
/// implementation keeps the contents a rewind needs before it answers.
#[async_trait]
pub trait WorkspaceChanges: Send + Sync {
    /// Before the calls: the workspace as it is now becomes the base (what changed
    /// since the last comparison — the person's own edits — is not the turn's; its
    /// contents are kept all the same).
    ///
    /// # Errors
    /// The workspace cannot be read or a content kept.
    async fn before_calls(&self) -> Result<(), WorkspaceChangesError>;

    /// After the calls: what changed since [`before_calls`](Self::before_calls), as
    /// changes of `turn_id`, with every new content kept.
    ///
    /// # Errors
    /// The workspace cannot be read or a content kept.
    async fn after_calls(
        &self,
        turn_id: TurnId,
    ) -> Result<Vec<TurnFileChange>, WorkspaceChangesError>;
}
