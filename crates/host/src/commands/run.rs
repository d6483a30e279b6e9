//! `smallebot run PROMPT|- [--conversation ID] [--json] [--attach FILE]…`: one turn,
//! then exit.
//!
//! The answer goes to standard output; tool lines, reasoning and the usage footer go to
//! standard error, so `smallebot run … > answer.md` keeps only the answer. `-` reads the
//! prompt from standard input. A new conversation's title is asked for beside the turn;
//! one still being asked for when the turn ends (a request retried after a 429 or a
//! 5xx) gets [`TITLE_GRACE`] more, then is dropped (the conversation keeps its first
//! words as the title).

use std::io::{IsTerminal, Read};
use std::sync::Arc;
use std::time::Duration;

use smallebot_agent::assembly::{AssemblyError, Home, WarmUp};
use smallebot_agent::config::{AgentSettings, TERMINAL_FILE, TerminalSettings};
use smallebot_application::ports::{CommandConfirmer, DenyAll};
use smallebot_application::{SendOptions, TurnHandle};
use smallebot_core::entities::TurnStatus;
use smallebot_core::ids::{AttachmentId, ConversationId};

use smallebot_terminal::attach_files;
use smallebot_terminal::chat::StdinConfirmer;
use smallebot_terminal::conversation_ref::find_conversation;
use smallebot_terminal::render::{Resizes, RunOutput};

use crate::error::HostError;
use crate::shutdown::StopSignals;
use crate::wiring;

/// How long `run` waits after its turn for a title still being asked for (its request
/// retried after a 429 or a 5xx: the first retries come after 0.5 s and 1 s).
const TITLE_GRACE: Duration = Duration::from_secs(3);

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

/// What `run` says first when terminal.json asks for confirmations but standard input
/// cannot answer them (a pipe, a file): every such command will be denied.
fn confirmation_warning(home: &Home) -> Option<String> {
    let settings = TerminalSettings::load(home.root()).ok()?;
    (settings.require_command_confirmation && !std::io::stdin().is_terminal()).then(|| {
        format!(
            "note: {} sets requireCommandConfirmation and standard input is not a terminal, \
             so commands that need confirmation will be denied. To allow them, run in a \
             terminal, or whitelist them (commandWhitelist) or set \
             requireCommandConfirmation to false in that file.",
            home.root().join(TERMINAL_FILE).display()
        )
    })
}

/// The prompt: the argument, or standard input read whole for `-`.
fn read_prompt(argument: String) -> Result<String, HostError> {
    if argument != "-" {
        return Ok(argument);
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::InvalidData => HostError::PromptNotUtf8(error),
            _ => HostError::Io(error),
        })?;
    if text.trim().is_empty() {
        return Err(HostError::EmptyPrompt);
    }
    Ok(text)
}

/// Runs one turn, streaming the answer to stdout and the rest to stderr.
pub async fn run(home: &Home, args: RunArgs) -> Result<(), HostError> {
    let prompt = read_prompt(args.prompt.clone())?;
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
) -> Result<Vec<attach_files::FileToAttach>, HostError> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let limits = AgentSettings::load(home.root())
        .map_err(AssemblyError::from)?
        .attachments;
    Ok(attach_files::read_files(paths, limits.max_file_bytes)?)
}

/// The turn of `run` on a built app: its conversation found or created, the files
/// uploaded, the turn started and followed to its end, the title given its grace.
async fn run_turn(
    home: &Home,
    app: &wiring::App,
    args: &RunArgs,
    prompt: &str,
    files: Vec<attach_files::FileToAttach>,
    signals: &mut StopSignals,
) -> Result<(), HostError> {
    let service = &app.service;
    let (conversation_id, new, attachments) =
        conversation_with_files(app, args.conversation.as_deref(), files).await?;
    before_the_turn(home, app).await;
    let mut output = RunOutput::new(args.json);
    // The title is asked for by the service beside a new conversation's first turn.
    let options = SendOptions {
        title: new,
        attachments,
        ..SendOptions::default()
    };
    let mut stopping = false;
    let start = service.start(conversation_id, prompt, options);
    tokio::pin!(start);
    let started = loop {
        tokio::select! {
            started = &mut start => break started,
            stop = signals.recv() => {
                // Stopped while the turn is being stored (a compression before it, say):
                // it ends cancelled once stored.
                errln!("{stop}: stopping the turn");
                service.interrupt_all();
                stopping = true;
            }
        }
    };
    let TurnHandle {
        mut events,
        end: mut turn,
        title,
        ..
    } = started?;
    // A resize lays the answer's open lines out again at the new width.
    let mut resizes = Resizes::watch(!args.json && std::io::stdout().is_terminal());
    let outcome = loop {
        tokio::select! {
            Some(event) = events.recv() => output.print(&event),
            Some(()) = resizes.next() => output.resized(),
            joined = &mut turn => {
                while let Some(event) = events.try_recv() {
                    output.print(&event);
                }
                break joined
                    .map_err(|source| HostError::TaskJoin { what: "the turn", source })
                    .and_then(|sent| sent.map_err(HostError::from));
            }
            stop = signals.recv() => {
                // The turn ends stored (partial answer kept, tool calls interrupted,
                // commands killed) before this process exits.
                errln!("{stop}: stopping the turn");
                service.interrupt_all();
                stopping = true;
            }
        }
    };
    let failed_output = output.failed.take();
    drop(output);
    if let Some(title) = title {
        wait_for_title(title, stopping).await;
    }
    match (outcome?.status, failed_output) {
        (TurnStatus::Completed, None) => Ok(()),
        // The turn is stored; only its printing stopped.
        (TurnStatus::Completed, Some(error)) => Err(HostError::Io(error)),
        (status, failed_output) => Err(HostError::TurnNotCompleted {
            conversation_id,
            status,
            // Printed with the events unless JSON lines or a closed output hid it.
            reported: !args.json && failed_output.is_none(),
        }),
    }
}

/// The conversation of the turn — the one `--conversation` names, or a new one
/// (`true`) — and the files uploaded into it. Files over a limit, or an image for a
/// model that cannot see it, are refused before anything is stored.
async fn conversation_with_files(
    app: &wiring::App,
    reference: Option<&str>,
    files: Vec<attach_files::FileToAttach>,
) -> Result<(ConversationId, bool, Vec<AttachmentId>), HostError> {
    let service = &app.service;
    let existing = match reference {
        Some(reference) => {
            Some(find_conversation(service.store().as_ref(), reference, Some(&app.user)).await?)
        }
        None => None,
    };
    attach_files::check(
        service,
        existing.as_ref(),
        &files.iter().collect::<Vec<_>>(),
    )?;
    let (conversation_id, new) = match existing {
        Some(c) => (c.id, false),
        None => (service.create_conversation(&app.user).await?.id, true),
    };
    let attached = attach_files::upload(service, conversation_id, files).await?;
    Ok((
        conversation_id,
        new,
        attached.into_iter().map(|a| a.id).collect(),
    ))
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

/// A title still being asked for (its request retried after a 429 or a 5xx) gets a
/// moment more, unless the process is stopping; then it is given up and the
/// conversation keeps its fallback title.
async fn wait_for_title<T>(mut title: tokio::task::JoinHandle<T>, stopping: bool) {
    let grace = if stopping {
        Duration::ZERO
    } else {
        TITLE_GRACE
    };
    if tokio::time::timeout(grace, &mut title).await.is_err() {
        title.abort();
    }
}
