//! Asking the person whether a command may run (`requireCommandConfirmation`).
//!
//! - In chat, the REPL owns standard input, so [`TerminalConfirmer`] sends each question
//!   over a channel; the REPL's turn loop receives it and [`ask`] prints the command and
//!   `Allow? [y/N]` and reads the answer from the REPL's own input.
//! - For `smallebot run`, [`StdinConfirmer`] prompts on standard error and reads standard
//!   input itself (only used when standard input is a terminal; otherwise `DenyAll`).
//!
//! Only `y` or `yes` (any case) allows; anything else, end of input, Ctrl+C or no answer
//! within the timeout denies.

use std::io::Write;
use std::time::Duration;

use async_trait::async_trait;
use smallebot_application::ports::{CommandConfirmer, ConfirmationRequest};
use smallebot_core::rules::terminal_text::escape_controls;
use tokio::sync::{Mutex, mpsc, oneshot};

use super::input::{Input, LineSource};

/// One question to the person, answered through its reply channel.
#[derive(Debug)]
pub struct ConfirmRequest {
    command: String,
    /// The command would run without the sandbox (no Landlock).
    unconfined: bool,
    timeout: Duration,
    reply: oneshot::Sender<bool>,
}

/// The chat REPL's confirmer: questions go to the REPL through a channel.
#[derive(Debug, Clone)]
pub struct TerminalConfirmer {
    requests: mpsc::Sender<ConfirmRequest>,
}

impl TerminalConfirmer {
    /// A confirmer and the receiver the REPL answers from (see `Repl::with_confirmations`).
    pub fn channel() -> (Self, mpsc::Receiver<ConfirmRequest>) {
        let (requests, receiver) = mpsc::channel(8);
        (Self { requests }, receiver)
    }
}

#[async_trait]
impl CommandConfirmer for TerminalConfirmer {
    async fn confirm(&self, request: &ConfirmationRequest<'_>, timeout: Duration) -> bool {
        let command = request.command;
        let (reply, answer) = oneshot::channel();
        let request = ConfirmRequest {
            command: command.to_owned(),
            unconfined: request.unconfined,
            timeout,
            reply,
        };
        // The deadline covers the queue too: a question never waits longer than asked.
        tokio::time::timeout(timeout, async {
            self.requests.send(request).await.is_ok() && answer.await.unwrap_or(false)
        })
        .await
        .unwrap_or(false)
    }
}

/// Said with every question about a command that would run without the sandbox.
const UNCONFINED_NOTE: &str = "  (WITHOUT the sandbox: this kernel has no Landlock, so the \
                               command could read and change anything you can)";

/// Whether an answer line means yes.
fn is_yes(line: &str) -> bool {
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// Whether an answer line means "always allow this exact command here".
fn is_always(line: &str) -> bool {
    matches!(line.trim().to_ascii_lowercase().as_str(), "a" | "always")
}

impl ConfirmRequest {
    /// The command waiting for an answer.
    pub(super) fn command(&self) -> &str {
        &self.command
    }

    /// Allows it without asking (the person said "always" before).
    pub(super) fn allow(self) {
        let _ = self.reply.send(true);
    }
}

/// What happened to a question asked by [`ask`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Asked {
    /// Answered (or timed out, or end of input); the command may run when `true`.
    Answered(bool),
    /// Allowed, and the same command is allowed without asking for the rest of the
    /// conversation.
    Always,
    /// Ctrl+C was pressed: denied, and the turn should be cancelled.
    Interrupted,
}

/// Discards what was typed before the question, prints it to `out` with the whole
/// command, reads one answer from `input` and replies.
///
/// # Errors
/// Reading the input or writing the output failed (the command is denied).
pub(super) async fn ask<S, W>(
    mut request: ConfirmRequest,
    input: &mut S,
    out: &mut W,
    interrupts: &mut mpsc::UnboundedReceiver<()>,
) -> std::io::Result<Asked>
where
    S: LineSource,
    W: Write,
{
    input.discard_pending();
    let seconds = request.timeout.as_secs();
    let prompt = format!("Allow? [y/N, a = always in this conversation] ({seconds} s) ");
    write!(
        out,
        "\nThe assistant wants to run a command:\n  $ {}\n",
        escape_controls(&request.command)
    )?;
    if request.unconfined {
        writeln!(out, "{UNCONFINED_NOTE}")?;
    }
    if !input.draws_prompt() {
        write!(out, "{prompt}")?;
    }
    out.flush()?;
    let asked_at = std::time::Instant::now();
    let (asked, note) = tokio::select! {
        entry = input.read(&prompt) => match entry? {
            Input::Line(line) if is_yes(&line) => (Asked::Answered(true), "allowed".to_owned()),
            Input::Line(line) if is_always(&line) => {
                (Asked::Always, "allowed (and from now on in this conversation)".to_owned())
            }
            Input::Line(_) => (Asked::Answered(false), "denied".to_owned()),
            Input::Closed => (Asked::Answered(false), "denied (end of input)".to_owned()),
            Input::Interrupted => (Asked::Interrupted, "denied (interrupted)".to_owned()),
        },
        () = tokio::time::sleep(request.timeout) => {
            (Asked::Answered(false), format!("denied (no answer within {seconds} s)"))
        }
        () = request.reply.closed() => {
            // The tool gave up: its own deadline (the same timeout) or a cancelled turn.
            let note = if asked_at.elapsed() + Duration::from_millis(100) >= request.timeout {
                format!("denied (no answer within {seconds} s)")
            } else {
                "denied (no longer needed)".to_owned()
            };
            (Asked::Answered(false), note)
        }
        Some(()) = interrupts.recv() => (Asked::Interrupted, "denied (interrupted)".to_owned()),
    };
    writeln!(out, "\n→ {note}")?;
    let allowed = matches!(asked, Asked::Answered(true) | Asked::Always);
    let _ = request.reply.send(allowed);
    Ok(asked)
}

/// The `run` command's confirmer: prompts on standard error and reads standard input.
///
/// Standard input is read by one background thread, started at the first question
/// (a blocking read cannot be cancelled; the thread ends with the process). Lines typed
/// before a question are discarded.
#[derive(Debug, Default)]
pub struct StdinConfirmer {
    lines: Mutex<Option<mpsc::UnboundedReceiver<String>>>,
}

impl StdinConfirmer {
    /// A confirmer that has not read anything yet.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Starts the thread that forwards standard input lines.
fn read_stdin_lines() -> mpsc::UnboundedReceiver<String> {
    let (sender, receiver) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

#[async_trait]
impl CommandConfirmer for StdinConfirmer {
    async fn confirm(&self, request: &ConfirmationRequest<'_>, timeout: Duration) -> bool {
        let command = request.command;
        let mut guard = self.lines.lock().await;
        let lines = guard.get_or_insert_with(read_stdin_lines);
        while lines.try_recv().is_ok() {}
        let seconds = timeout.as_secs();
        let note = if request.unconfined {
            format!("{UNCONFINED_NOTE}\n")
        } else {
            String::new()
        };
        {
            use std::io::Write as _;
            let mut stderr = std::io::stderr().lock();
            // A closed standard error cannot be asked on; the answer decides as always.
            let _ = write!(
                stderr,
                "\nThe assistant wants to run a command:\n  $ {command}\n{note}Allow? [y/N] ({seconds} s) "
            )
            .and_then(|()| stderr.flush());
        }
        let allowed = match tokio::time::timeout(timeout, lines.recv()).await {
            Ok(Some(line)) => is_yes(&line),
            Ok(None) => false,
            Err(_) => {
                errln!();
                false
            }
        };
        errln!("→ {}", if allowed { "allowed" } else { "denied" });
        allowed
    }
}

#[cfg(test)]
#[path = "confirm_tests.rs"]
mod tests;
