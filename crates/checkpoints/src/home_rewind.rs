//! [`HomeRewind`]: the application's `ConversationRewind` port on a home's workspace —
//! what `POST /api/conversations/{id}/rewind` does, the same rewind as the command
//! line's.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use smallebot_application::ports::{ConversationRewind, RewindError};
use smallebot_core::entities::TurnFileChange;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::Store;
use smallebot_protocol::api::{self, PathReason, RewindAnswer, RewindBody};

use crate::error::CheckpointError;
use crate::limits::Limits;
use crate::rewind::{RewindReport, RewindRequest, RewindScope, rewind, undo_rewind, workspace_of};

/// Rewinds conversations of a home: each in its owner's workspace (a web user's own
/// folder beneath it when `web_users`, as multi-user `serve` gives them).
pub struct HomeRewind {
    store: Arc<dyn Store>,
    workspace: PathBuf,
    limits: Limits,
    web_users: bool,
}

impl HomeRewind {
    /// Rewinds in `workspace` (or its users' folders, with `web_users`), contents read
    /// from and kept in `store`.
    #[must_use]
    pub fn new(store: Arc<dyn Store>, workspace: PathBuf, limits: Limits, web_users: bool) -> Self {
        Self {
            store,
            workspace,
            limits,
            web_users,
        }
    }
}

#[async_trait]
impl ConversationRewind for HomeRewind {
    async fn rewind(
        &self,
        user: &str,
        conversation_id: ConversationId,
        body: &RewindBody,
    ) -> Result<RewindAnswer, RewindError> {
        if body.undo && (body.to_turn.is_some() || body.scope != api::RewindScope::Files) {
            return Err(RewindError::Refused(
                "'undo' undoes the last rewind of the files: send it without 'to_turn' and \
                 'scope'"
                    .to_owned(),
            ));
        }
        let workspace = workspace_of(&self.workspace, user, self.web_users).map_err(refusal)?;
        let report = if body.undo {
            undo_rewind(
                &self.store,
                &workspace,
                self.limits,
                conversation_id,
                body.force,
            )
            .await
        } else {
            let request = RewindRequest {
                conversation_id,
                to: body.to_turn.clone(),
                scope: match body.scope {
                    api::RewindScope::Files => RewindScope::Files,
                    api::RewindScope::Conversation => RewindScope::Conversation,
                    api::RewindScope::Both => RewindScope::Both,
                },
                force: body.force,
            };
            rewind(&self.store, &workspace, self.limits, &request).await
        };
        report.map(answer).map_err(refusal)
    }
}

/// A rewind's error as the port's.
fn refusal(error: CheckpointError) -> RewindError {
    match error {
        CheckpointError::Rewind(_) => RewindError::Refused(error.to_string()),
        CheckpointError::Busy(_) => RewindError::Busy(error.to_string()),
        other => RewindError::Failed(other.to_string()),
    }
}

/// What a rewind did, as the API answers it.
fn answer(report: RewindReport) -> RewindAnswer {
    let reason = |change: &TurnFileChange| PathReason {
        path: change.change.path.clone(),
        reason: change.not_captured.clone().unwrap_or_default(),
    };
    let files = report.files.unwrap_or_default();
    RewindAnswer {
        turns: report.turns.iter().map(|t| t.id.to_string()).collect(),
        restored: files.restored,
        conflicts: files
            .conflicts
            .into_iter()
            .map(|c| PathReason {
                path: c.path,
                reason: c.reason,
            })
            .collect(),
        not_captured: report.not_captured.iter().map(reason).collect(),
        undone: report.undone.iter().map(|t| t.id.to_string()).collect(),
        rewind_id: report.rewind_id,
    }
}
