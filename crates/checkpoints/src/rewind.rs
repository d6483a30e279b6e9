//! Rewinding a conversation: its files brought back to their state before a turn, the
//! turns taken out of its context, or both; and undoing the last rewind of its files.
//!
//! Never while a turn of the conversation runs. A rewind of the files is itself
//! checkpointed: its own changes are stored (on the conversation's last turn, under the
//! rewind's id), so [`undo_rewind`] can bring back what it replaced.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use smallebot_core::entities::{Turn, TurnFileChange};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::Store;
use smallebot_core::rules::checkpoint::FileChange;
use tokio::runtime::Handle;

use crate::error::CheckpointError;
use crate::in_turn::{RepositoryContents, open_workspace, turn_changes};
use crate::limits::Limits;
use crate::restore::{RestoreReport, restore};
use crate::targets::{RestoreTarget, targets};

/// What a rewind takes back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RewindScope {
    /// The files only; the conversation is untouched.
    #[default]
    Files,
    /// The conversation only: the turns are taken out of its context (undone).
    Conversation,
    /// Both.
    Both,
}

/// A rewind to do.
#[derive(Debug, Clone)]
pub struct RewindRequest {
    /// The conversation.
    pub conversation_id: ConversationId,
    /// The first turn to take back: its number (1 for the first) or its id; `None`:
    /// the last turn.
    pub to: Option<String>,
    /// What to take back.
    pub scope: RewindScope,
    /// Replace files changed since the turns too (conflicts are otherwise left alone).
    pub force: bool,
}

/// What a rewind did.
#[derive(Debug, Default)]
pub struct RewindReport {
    /// The turns taken back (the chosen one and those after it), oldest first.
    pub turns: Vec<Turn>,
    /// The files: what was restored, the conflicts, the rewind's own changes.
    pub files: Option<RestoreReport>,
    /// The changes of those turns a rewind cannot undo (contents not kept), with why.
    pub not_captured: Vec<TurnFileChange>,
    /// The id its own changes are stored under, when it changed files.
    pub rewind_id: Option<String>,
    /// The turns taken out of the conversation's context, newest first.
    pub undone: Vec<Turn>,
}

/// The workspace a conversation of `user` works in: a web user's own folder
/// (`<workspace>/users/<user>`, as multi-user `serve` gives them) when `web_user`, else
/// the home's `workspace`. A web user's folder must be a folder beneath it, reached
/// through no link.
///
/// # Errors
/// [`CheckpointError::Rewind`] when a web user's folder is missing or is a link.
pub fn workspace_of(
    workspace: &Path,
    user: &str,
    web_user: bool,
) -> Result<PathBuf, CheckpointError> {
    if !web_user {
        return Ok(workspace.to_path_buf());
    }
    let folder = format!("users/{user}");
    let is_folder = smallebot_confined::Root::open(workspace, smallebot_confined::Links::Refuse)
        .and_then(|root| root.symlink_metadata(&folder))
        .is_ok_and(|meta| meta.is_dir());
    if is_folder {
        Ok(workspace.join(folder))
    } else {
        Err(CheckpointError::Rewind(format!(
            "the workspace folder of web user '{user}' ({}) is missing or not a folder; \
             nothing was restored",
            workspace.join(folder).display()
        )))
    }
}

/// Refuses while a turn of `conversation_id` runs; the conversation's turns otherwise.
async fn idle_turns(
    store: &dyn Store,
    conversation_id: ConversationId,
) -> Result<Vec<Turn>, CheckpointError> {
    if store.get_conversation(conversation_id).await?.is_none() {
        return Err(CheckpointError::Rewind(format!(
            "conversation {conversation_id} not found"
        )));
    }
    if let Some(turn) = store.running_turn(conversation_id).await? {
        return Err(CheckpointError::Busy(format!(
            "turn {} of conversation {conversation_id} is running; rewind once it has \
             finished (or cancel it)",
            turn.id
        )));
    }
    Ok(store.list_turns(conversation_id).await?)
}

/// The place among `turns` of the turn `to` names (a number from 1, or an id).
fn chosen(turns: &[Turn], to: Option<&str>) -> Result<usize, CheckpointError> {
    let last = turns.len().checked_sub(1).ok_or_else(|| {
        CheckpointError::Rewind("the conversation has no turns to rewind".to_owned())
    })?;
    let Some(to) = to else {
        return Ok(last);
    };
    let by_number = to
        .parse::<usize>()
        .ok()
        .filter(|n| (1..=turns.len()).contains(n))
        .map(|n| n - 1);
    let by_id = to
        .parse::<TurnId>()
        .ok()
        .and_then(|id| turns.iter().position(|t| t.id == id));
    by_number.or(by_id).ok_or_else(|| {
        CheckpointError::Rewind(format!(
            "'{to}' is no turn of this conversation: give a turn's number (1 to {}, as \
             `conversations show` numbers them) or its id",
            turns.len()
        ))
    })
}

/// Restores `targets` in the workspace at `workspace` on the blocking pool (the
/// workspace indexed first, so every current content is kept), and stores the
/// restore's own changes on `last_turn` under a new rewind id.
async fn restore_files(
    store: &Arc<dyn Store>,
    workspace: &Path,
    limits: Limits,
    targets: Vec<RestoreTarget>,
    force: bool,
    last_turn: &Turn,
) -> Result<(RestoreReport, Option<String>), CheckpointError> {
    let contents = RepositoryContents::new(Arc::clone(store) as _, Handle::current());
    let path: PathBuf = workspace.to_path_buf();
    let report = tokio::task::spawn_blocking(move || {
        let mut open = open_workspace(&path, limits)?;
        open.baseline(&contents)?;
        restore(&mut open, &contents, &targets, force)
    })
    .await
    .map_err(|err| CheckpointError::Rewind(format!("the restore stopped: {err}")))??;
    if report.undo.is_empty() {
        return Ok((report, None));
    }
    let id = format!("rewind-{}", uuid::Uuid::now_v7());
    let changes: Vec<TurnFileChange> = turn_changes(last_turn.id, report.undo.clone())
        .into_iter()
        .map(|change| TurnFileChange {
            rewind: Some(id.clone()),
            ..change
        })
        .collect();
    store
        .record_file_changes(last_turn.conversation_id, last_turn.id, &changes)
        .await?;
    Ok((report, Some(id)))
}

/// Rewinds the conversation to before the chosen turn: its files (each path the turns
/// changed back to its state before them, conflicts left alone unless forced), its
/// context (the turns undone), or both.
///
/// # Errors
/// [`CheckpointError::Rewind`] for an unknown conversation or turn, or while a turn of
/// the conversation runs; storage, workspace and undo failures as they come.
pub async fn rewind(
    store: &Arc<dyn Store>,
    workspace: &Path,
    limits: Limits,
    request: &RewindRequest,
) -> Result<RewindReport, CheckpointError> {
    let conversation_id = request.conversation_id;
    let turns = idle_turns(store.as_ref(), conversation_id).await?;
    let first = chosen(&turns, request.to.as_deref())?;
    let mut report = RewindReport {
        turns: turns[first..].to_vec(),
        ..RewindReport::default()
    };
    if request.scope != RewindScope::Conversation {
        let changes = store.file_changes(conversation_id).await?;
        let mut by_turn: Vec<Vec<FileChange>> = Vec::new();
        for turn in &report.turns {
            let own = changes
                .iter()
                .filter(|c| c.turn_id == turn.id && c.rewind.is_none());
            let (kept, missing): (Vec<_>, Vec<_>) = own.partition(|c| c.not_captured.is_none());
            report.not_captured.extend(missing.into_iter().cloned());
            by_turn.push(kept.into_iter().map(|c| c.change.clone()).collect());
        }
        let slices: Vec<&[FileChange]> = by_turn.iter().map(Vec::as_slice).collect();
        let last = turns.last().unwrap_or(&turns[first]);
        let (files, id) = restore_files(
            store,
            workspace,
            limits,
            targets(&slices),
            request.force,
            last,
        )
        .await?;
        report.files = Some(files);
        report.rewind_id = id;
    }
    if request.scope != RewindScope::Files {
        let chosen_id = turns[first].id;
        while let Some(turn) =
            smallebot_application::rewrite::undo_last_turn(store.as_ref(), conversation_id).await?
        {
            let done = turn.id == chosen_id;
            report.undone.push(turn);
            if done {
                break;
            }
        }
    }
    Ok(report)
}

/// Undoes the conversation's last rewind of its files: each path it changed back to
/// what it was before it (conflicts left alone unless `force`). Itself a rewind: its
/// changes are stored, so undoing again redoes.
///
/// # Errors
/// [`CheckpointError::Rewind`] when the conversation has no rewind of its files, is
/// unknown, or runs a turn; storage and workspace failures as they come.
pub async fn undo_rewind(
    store: &Arc<dyn Store>,
    workspace: &Path,
    limits: Limits,
    conversation_id: ConversationId,
    force: bool,
) -> Result<RewindReport, CheckpointError> {
    let turns = idle_turns(store.as_ref(), conversation_id).await?;
    let changes = store.file_changes(conversation_id).await?;
    let last_id = changes
        .iter()
        .rev()
        .find_map(|c| c.rewind.clone())
        .ok_or_else(|| {
            CheckpointError::Rewind(format!(
                "conversation {conversation_id} has no rewind of its files to undo"
            ))
        })?;
    let group: Vec<FileChange> = changes
        .iter()
        .filter(|c| c.rewind.as_deref() == Some(last_id.as_str()))
        .map(|c| c.change.clone())
        .collect();
    let last = turns.last().ok_or_else(|| {
        CheckpointError::Rewind("the conversation has no turns to rewind".to_owned())
    })?;
    let (files, id) =
        restore_files(store, workspace, limits, targets(&[&group]), force, last).await?;
    Ok(RewindReport {
        files: Some(files),
        rewind_id: id,
        ..RewindReport::default()
    })
}
