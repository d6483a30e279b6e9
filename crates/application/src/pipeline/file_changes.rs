//! Checkpoints in a turn: the workspace compared around a step's calls that may change
//! it, and what they changed stored as the turn's file changes.
//!
//! A step's calls run concurrently, so they are compared as one group: the workspace
//! before the first starts and after the last ends. Which call changed a file cannot
//! be told, and need not be: a turn lists its changes and a rewind undoes a turn.

use std::sync::Arc;

use smallebot_core::entities::TurnFileChange;
use smallebot_core::rules::checkpoint::ChangeKind;

use super::tool_step::StartedCall;
use super::turn::TurnRun;
use crate::error::PipelineError;
use crate::ports::{PlanAccess, WorkspaceChanges, WorkspaceChangesError};

/// The path a change stands under when the whole workspace could not be compared.
pub(crate) const WHOLE_WORKSPACE: &str = ".";

/// Whether a call with these effects may change the workspace's files: it declares
/// itself mutating, and not only because it edits the task list.
fn may_change_files(traits: crate::ports::ToolTraits) -> bool {
    traits.mutating && traits.plan != PlanAccess::Edits
}

impl TurnRun<'_> {
    /// The workspace to compare around `calls`: when there is one under checkpoints
    /// and one of the calls may change files.
    pub(super) fn workspace_for(&self, calls: &[StartedCall]) -> Option<Arc<dyn WorkspaceChanges>> {
        let workspace = self.context.workspace.as_ref()?;
        let tools = &self.context.tools;
        calls
            .iter()
            .any(|call| {
                tools
                    .effects(&call.invocation)
                    .is_some_and(|effects| may_change_files(effects.traits))
            })
            .then(|| Arc::clone(workspace))
    }

    /// After the calls: compares the workspace with what `before` found and stores
    /// the changes as the turn's. A comparison that failed is stored as a change of the
    /// whole workspace that was not captured, with the reason — never nothing.
    ///
    /// # Errors
    /// The changes could not be stored.
    pub(super) async fn record_file_changes(
        &self,
        workspace: &dyn WorkspaceChanges,
        before: Result<(), WorkspaceChangesError>,
    ) -> Result<(), PipelineError> {
        let turn_id = self.turn.id;
        let after = workspace.after_calls(turn_id).await;
        let changes = match (before, after) {
            (Ok(()), Ok(changes)) => changes,
            (Err(err), _) => vec![not_compared(turn_id, "before", &err)],
            (Ok(()), Err(err)) => vec![not_compared(turn_id, "after", &err)],
        };
        if changes.is_empty() {
            return Ok(());
        }
        self.context
            .store
            .record_file_changes(self.turn.conversation_id, turn_id, &changes)
            .await?;
        Ok(())
    }
}

/// The change that says the workspace could not be compared `when` the calls ran.
fn not_compared(
    turn_id: smallebot_core::ids::TurnId,
    when: &str,
    err: &WorkspaceChangesError,
) -> TurnFileChange {
    TurnFileChange::not_captured(
        turn_id,
        WHOLE_WORKSPACE,
        ChangeKind::Modified,
        &format!(
            "the workspace could not be compared {when} the calls ({err}); what they changed \
             is not listed and cannot be rewound"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::ToolTraits;

    #[test]
    fn only_calls_that_may_change_files_are_compared_around() {
        let rows = [
            (ToolTraits::READ_ONLY, false),
            (ToolTraits::MUTATING, true),
            (ToolTraits::plan(PlanAccess::Edits), false),
            (ToolTraits::plan(PlanAccess::Reads), false),
        ];
        for (traits, want) in rows {
            assert_eq!(may_change_files(traits), want, "{traits:?}");
        }
    }
}
