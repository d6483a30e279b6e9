//! `smallebot run PROMPT|- [--conversation ID] [--json] [--attach FILE]…`: one turn,
//! then exit.
//!
//! The answer goes to standard output; tool lines, reasoning and the usage footer go to
//! standard error, so `smallebot run … > answer.md` keeps only the answer. `-` reads the
//! prompt from standard input. The turn itself is the terminal front end's
//! (`smallebot_terminal::run_turn`); this wires it and maps how it ended to the exit.

use std::io::IsTerminal;
use std::sync::Arc;

use smallebot_agent::assembly::{AssemblyError, Home, WarmUp};
use smallebot_agent::config::{AGENT_FILE, AgentSettings, TERMINAL_FILE, TerminalSettings};
use smallebot_application::ports::{CommandConfirmer, DenyAll};
use smallebot_core::entities::TurnStatus;
use smallebot_core::rules::permission::DefaultMode;

use smallebot_terminal::attach_files::{self, FileToAttach};
use smallebot_terminal::chat::StdinConfirmer;
use smallebot_terminal::run_turn;

use crate::error::HostError;
use crate::shutdown::StopSignals;
use crate::wiring;

/// Arguments of `run`.
pub struct RunArgs {
    /// The message; `-` reads it from standard input.
    pub prompt: String,
    /// Continue this conversation (id or unique prefix) instead of starting a new one.
    pub conversation: Option<String>,
    /// Print events as JSON lines.
    pub json: bool,
    /// Conversation owner.
    pub user: Option<String>,
    /// Files sent with the message (`--attach`).
    pub attach: Vec<std::path::PathBuf>,
}

/// Asks on the terminal when standard input is one, else denies.
fn confirmer() -> Arc<dyn CommandConfirmer> {
    if std::io::stdin().is_terminal() {
        Arc::new(StdinConfirmer::new())
    } else {
        Arc::new(DenyAll)
    }
}

/// What `run` says first when terminal.json or agent.json's permission rules ask about
/// calls but standard input cannot answer them (a pipe, a file): every such call will
/// be denied.
fn confirmation_warning(home: &Home) -> Option<String> {
    if std::io::stdin().is_terminal() {
        return None;
    }
    let settings = TerminalSettings::load(home.root()).ok()?;
    if settings.require_command_confirmation {
        return Some(format!(
            "note: {} sets requireCommandConfirmation and standard input is not a terminal, \
             so commands that need confirmation will be denied. To allow them, run in a \
             terminal, or whitelist them (commandWhitelist) or set \
             requireCommandConfirmation to false in that file.",
            home.root().join(TERMINAL_FILE).display()
        ));
    }
    let permissions = AgentSettings::load(home.root()).ok()?.permissions;
    (!permissions.ask.is_empty() || permissions.default_mode == DefaultMode::Ask).then(|| {
        format!(
            "note: the permission rules of {} ask about some tool calls and standard input \
             is not a terminal, so those calls will be denied. To allow them, run in a \
             terminal, or add allow rules for them in that file.",
            home.root().join(AGENT_FILE).display()
        )
    })
}

/// Runs one turn, streaming the answer to stdout and the rest to stderr.
pub async fn run(home: &Home, args: RunArgs) -> Result<(), HostError> {
    let prompt = run_turn::read_prompt(args.prompt.clone())?;
    // Every file is read before anything is stored: a missing one stops here, and so
    // does one over agent.json's per-file limit (checked before it is read).
    let files = read_attachments(home, &args.attach)?;
    // A person reading the context figure gets it counted exactly (below), so the
    // encoder is built from the start; a script never waits for it, and its ~150 ms
    // of CPU would only compete with the turn on a busy machine: built only if a
    // count must be exact (near the compression threshold); the counts stay marked
    // provisional for the next process to settle.
    let warm_up = if std::io::stderr().is_terminal() {
        WarmUp::Background
    } else {
        WarmUp::OnDemand
    };
    let app = wiring::build(home, args.user.as_deref(), confirmer(), warm_up).await?;
    // Caught once started (a start that hangs still ends at the first Ctrl+C): from
    // here a stop signal ends the turn stored.
    let mut signals = match StopSignals::catch(true) {
        Ok(signals) => signals,
        Err(error) => {
            app.close().await;
            return Err(error);
        }
    };
    let result = run_turn(home, &app, &args, &prompt, files, &mut signals).await;
    // Closed on every way out, the signals still caught meanwhile.
    app.close().await;
    result
}

/// The files of `--attach`, read and checked against agent.json's per-file limit.
fn read_attachments(
    home: &Home,
    paths: &[std::path::PathBuf],
) -> Result<Vec<FileToAttach>, HostError> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let limits = AgentSettings::load(home.root())
        .map_err(AssemblyError::from)?
        .attachments;
    Ok(attach_files::read_files(paths, limits.max_file_bytes)?)
}

/// The turn of `run` on a built app: its conversation found or created, the files
/// uploaded, the turn started and followed to its end (`smallebot_terminal::run_turn`).
async fn run_turn(
    home: &Home,
    app: &wiring::App,
    args: &RunArgs,
    prompt: &str,
    files: Vec<FileToAttach>,
    signals: &mut StopSignals,
) -> Result<(), HostError> {
    let service = &app.service;
    let prepared =
        run_turn::prepare(service, &app.user, args.conversation.as_deref(), files).await?;
    before_the_turn(home, app).await;
    let end = run_turn::follow(service, prepared, prompt, args.json, signals).await?;
    match (end.status, end.failed_output) {
        (TurnStatus::Completed, None) => Ok(()),
        // The turn is stored; only its printing stopped.
        (TurnStatus::Completed, Some(error)) => Err(HostError::Io(error)),
        (status, failed_output) => Err(HostError::TurnNotCompleted {
            conversation_id: end.conversation_id,
            status,
            budget_stop: end.budget_stop,
            // Printed with the events unless JSON lines or a closed output hid it.
            reported: !args.json && failed_output.is_none(),
        }),
    }
}

/// What is said and prepared before the turn starts: the exact tokenizer for a person
/// reading the context figure, and the warnings about confirmations and the sandbox.
async fn before_the_turn(home: &Home, app: &wiring::App) {
    if std::io::stderr().is_terminal() {
        // A person reads the context figure: counted exactly, as the chat counts it,
        // rather than the upper bound (one token per byte, ~4× too high) a request
        // sent before the tokenizer is built gets. Built in the background since
        // start-up; a script (standard error not a terminal) never waits for it.
        let tokenizer = Arc::clone(&app.tokenizer);
        let _built = tokio::task::spawn_blocking(move || tokenizer.warm_up()).await;
    }
    if let Some(warning) = confirmation_warning(home) {
        errln!("{warning}");
    }
    if let Some(sandbox) = app.sandbox.as_ref().filter(|s| s.needs_consent()) {
        errln!("warning: {}", sandbox.summary());
    }
}
