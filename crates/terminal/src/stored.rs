//! Stored conversations as the command line shows them: `conversations list`, `show`
//! and `export` (the binary opens the store and hands it here).

use std::io::IsTerminal as _;
use std::path::Path;

use smallebot_core::repository::Store;
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_core::tasks::{TaskStore, format_plan};

use crate::TerminalError;
use crate::conversation_ref::find_conversation;
use crate::export_file::write_export;
use crate::export_text::{ExportFormat, export_text};
use crate::render::file_changes::file_changes_block;
use crate::render::hook_runs::hook_runs_block;
use crate::render::{render_timeline, sub_agents};
use crate::user_path::shown;

/// `conversations list`: one line per conversation of `user` (or everyone's), sub-agent
/// conversations only with `all`.
///
/// # Errors
/// The store fails, or standard output cannot be written.
pub async fn list(store: &dyn Store, user: Option<&str>, all: bool) -> Result<(), TerminalError> {
    let lines = sub_agents::list_lines(&store.list_conversations(user).await?, all);
    if lines.is_empty() {
        outln!("no conversations yet")?;
    }
    for line in &lines {
        outln!("{}", escape_controls(line))?;
    }
    Ok(())
}

/// `conversations show`: the timeline, the sub-agents it delegated to, the files each
/// turn changed, the hooks each ran and the task list.
///
/// # Errors
/// The conversation is not found, the store fails, or the output cannot be written.
pub async fn show(
    store: &dyn Store,
    tasks: &dyn TaskStore,
    reference: &str,
) -> Result<(), TerminalError> {
    let conversation = find_conversation(store, reference, None).await?;
    let id = conversation.id;
    let turns = store.list_turns(id).await?;
    let rows = store.rows_after(id, 0).await?;
    out!(
        "{}",
        escape_controls(&render_timeline(&conversation, &turns, &rows))
    )?;
    let block = sub_agents::sub_agent_block(&store.sub_agent_runs(id).await?);
    if !block.is_empty() {
        out!("\n{}", escape_controls(&block))?;
    }
    let changes = file_changes_block(&turns, &store.file_changes(id).await?);
    if !changes.is_empty() {
        out!("\n{}", escape_controls(&changes))?;
    }
    let hooks = hook_runs_block(&turns, &store.hook_runs(id).await?);
    if !hooks.is_empty() {
        out!("\n{}", escape_controls(&hooks))?;
    }
    match tasks.load(id).await {
        Ok(list) if !list.tasks.is_empty() => {
            outln!("\n{}", escape_controls(&format_plan(&list)))?;
        }
        Ok(_) => {}
        Err(error) => errln!("the task list cannot be shown: {error}"),
    }
    Ok(())
}

/// `conversations export`: the conversation as Markdown or JSON to `output` (never over
/// an existing file unless `force`), else to standard output (control characters made
/// visible there when it is a terminal).
///
/// # Errors
/// The conversation is not found, the file exists (without `force`) or cannot be
/// written, or the store fails.
pub async fn export(
    store: &dyn Store,
    reference: &str,
    format: ExportFormat,
    output: Option<&Path>,
    force: bool,
) -> Result<(), TerminalError> {
    let conversation = find_conversation(store, reference, None).await?;
    let gathered = smallebot_application::export::gather(store, conversation.id).await?;
    let text = export_text(&gathered, format)?;
    match output {
        Some(path) => {
            write_export(path, &text, force).map_err(TerminalError::ExportFile)?;
            errln!("wrote conversation {} to {}", conversation.id, shown(path));
        }
        None if std::io::stdout().is_terminal() => out!("{}", escape_controls(&text))?,
        None => out!("{text}")?,
    }
    Ok(())
}
