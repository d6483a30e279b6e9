//! `smallebot rewind`: its arguments and what it prints (the binary opens the store
//! and hands both here; the rewind itself is `smallebot_checkpoints::rewind`).

use std::path::Path;
use std::sync::Arc;

use smallebot_checkpoints::{
    Limits, RewindReport, RewindRequest, RewindScope, rewind as rewind_files, undo_rewind,
    workspace_of,
};
use smallebot_core::repository::Store;
use smallebot_core::rules::terminal_text::escape_controls;

use crate::TerminalError;
use crate::conversation_ref::find_conversation;
use crate::render::file_changes::change_line;

/// `smallebot rewind CONVERSATION [--to TURN] [--files | --conversation | --both]
/// [--force] | --undo`
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("scope").args(["files", "conversation", "both", "undo"])))]
pub struct RewindArgs {
    /// The conversation (its id or the start of it).
    pub conversation_ref: String,
    /// The first turn to take back: its number as `conversations show` numbers them,
    /// or its id (default: the last turn).
    #[arg(long, value_name = "TURN")]
    pub to: Option<String>,
    /// Bring the files back to their state before the turn; the conversation stays as
    /// it is (the default).
    #[arg(long)]
    pub files: bool,
    /// Take the turns out of the conversation's context (undo); the files stay.
    #[arg(long)]
    pub conversation: bool,
    /// Both: the files back, the turns undone.
    #[arg(long)]
    pub both: bool,
    /// Also replace files changed since the turn (otherwise listed as conflicts and
    /// left as they are).
    #[arg(long)]
    pub force: bool,
    /// Undo the last rewind of the conversation's files.
    #[arg(long)]
    pub undo: bool,
}

impl RewindArgs {
    fn scope(&self) -> RewindScope {
        if self.both {
            RewindScope::Both
        } else if self.conversation {
            RewindScope::Conversation
        } else {
            RewindScope::Files
        }
    }
}

/// The lines a rewind prints.
#[must_use]
pub fn report_lines(report: &RewindReport, conversation: &str) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(first) = report.turns.first() {
        lines.push(format!(
            "rewinding {} turn(s), from turn {}",
            report.turns.len(),
            first.id
        ));
    }
    if let Some(files) = &report.files {
        if files.restored.is_empty() && files.conflicts.is_empty() {
            lines.push("no file to restore".to_owned());
        }
        for path in &files.restored {
            lines.push(format!("restored  {path}"));
        }
        for conflict in &files.conflicts {
            lines.push(format!("conflict  {}: {}", conflict.path, conflict.reason));
        }
    }
    for missing in &report.not_captured {
        lines.push(format!("not restorable  {}", change_line(missing)));
    }
    for turn in &report.undone {
        lines.push(format!("undone turn {}", turn.id));
    }
    if report.rewind_id.is_some() {
        lines.push(format!(
            "to undo this rewind: smallebot rewind {conversation} --undo"
        ));
    }
    lines
}

/// Runs `smallebot rewind` on the conversations of `store`, printing what it did: in
/// the home's `workspace`, or a web user's own folder beneath it for a conversation of
/// one of `web_users`. A conflict is not a failure: it is listed.
///
/// # Errors
/// The conversation or turn is unknown, a turn of the conversation runs, or the store
/// or the workspace fails.
pub async fn rewind(
    store: Arc<dyn Store>,
    workspace: &Path,
    web_users: &[String],
    args: RewindArgs,
) -> Result<(), TerminalError> {
    for line in rewind_lines(store, workspace, web_users, &args).await? {
        outln!("{}", escape_controls(&line))?;
    }
    Ok(())
}

/// Rewinds as [`rewind`] does and gives back the lines that say what it did (chat's
/// `/rewind` shows them in its own way).
///
/// # Errors
/// As [`rewind`].
pub async fn rewind_lines(
    store: Arc<dyn Store>,
    workspace: &Path,
    web_users: &[String],
    args: &RewindArgs,
) -> Result<Vec<String>, TerminalError> {
    let conversation = find_conversation(store.as_ref(), &args.conversation_ref, None).await?;
    let user = &conversation.user_name;
    let workspace =
        workspace_of(workspace, user, web_users.contains(user)).map_err(TerminalError::Rewind)?;
    let workspace = workspace.as_path();
    let limits = Limits::default();
    let report = if args.undo {
        undo_rewind(&store, workspace, limits, conversation.id, args.force).await
    } else {
        let request = RewindRequest {
            conversation_id: conversation.id,
            to: args.to.clone(),
            scope: args.scope(),
            force: args.force,
        };
        rewind_files(&store, workspace, limits, &request).await
    }
    .map_err(TerminalError::Rewind)?;
    Ok(report_lines(&report, &conversation.id.to_string()))
}
