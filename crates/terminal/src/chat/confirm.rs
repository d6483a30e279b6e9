//! Asking the person whether a tool call may run (a permission rule, or
//! `requireCommandConfirmation`, asks).
//!
//! - In chat, the REPL owns standard input, so [`TerminalConfirmer`] sends each question
//!   over a channel; the REPL's turn loop receives it and [`ask`] prints the call (a
//!   command as `$ command`, another tool's call by name and arguments), the rule that
//!   asked, and `Allow? [y/N, a = always in this conversation, r = always (a rule)]`,
//!   and reads the answer from the REPL's own input.
//! - For `smallebot run`, [`StdinConfirmer`] prompts on standard error and reads standard
//!   input itself (only used when standard input is a terminal; otherwise `DenyAll`).
//!
//! `y` or `yes` (any case) allows once, `a` for the rest of the conversation, `r` (or
//! `rule`) from now on; anything else, end of input, Ctrl+C or no answer within the
//! timeout denies.

use std::io::Write;
use std::time::Duration;

use async_trait::async_trait;
use smallebot_application::ports::{Answer, CommandConfirmer, ConfirmationRequest};
use smallebot_core::rules::terminal_text::escape_controls;
use tokio::sync::{Mutex, mpsc, oneshot};

use super::input::{Input, LineSource};

/// One question to the person, answered through its reply channel.
#[derive(Debug)]
pub struct ConfirmRequest {
    /// The call in one line (a command line, or the tool's name and arguments).
    command: String,
    /// Whether the call is a command line (shown as `$ command`).
    is_command: bool,
    /// The tool called (empty when not said).
    tool: String,
    /// What asked (the rule, or the default).
    rule: Option<String>,
    /// The command would run without the sandbox (no Landlock).
    unconfined: bool,
    timeout: Duration,
    reply: oneshot::Sender<Answer>,
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
        self.answer(request, timeout).await.allows()
    }

    async fn answer(&self, request: &ConfirmationRequest<'_>, timeout: Duration) -> Answer {
        let (reply, answer) = oneshot::channel();
        let request = ConfirmRequest {
            command: request.command.to_owned(),
            is_command: request.is_command,
            tool: request.tool.to_owned(),
            rule: request.rule.map(str::to_owned),
            unconfined: request.unconfined,
            timeout,
            reply,
        };
        // The deadline covers the queue too: a question never waits longer than asked.
        tokio::time::timeout(timeout, async {
            if self.requests.send(request).await.is_err() {
                return Answer::Deny;
            }
            answer.await.unwrap_or(Answer::Deny)
        })
        .await
        .unwrap_or(Answer::Deny)
    }
}

/// Said with every question about a command that would run without the sandbox.
const UNCONFINED_NOTE: &str = "  (WITHOUT the sandbox: this kernel has no Landlock, so the \
                               command could read and change anything you can)";

/// Whether an answer line means yes.
fn is_yes(line: &str) -> bool {
    matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// The answer an answer line means, with the note printed after it.
fn answer_of(line: &str) -> (Answer, &'static str) {
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => (Answer::Once, "allowed"),
        "a" | "always" => (
            Answer::Conversation,
            "allowed (and from now on in this conversation)",
        ),
        "r" | "rule" => (Answer::Always, "allowed (and from now on: a rule for you)"),
        _ => (Answer::Deny, "denied"),
    }
}

/// The question's first lines: the call (a command as `$ command`), the note about
/// the sandbox, and what asked.
fn question_text(command: &str, is_command: bool, tool: &str, rule: Option<&str>) -> String {
    let mut text = if is_command {
        format!(
            "\nThe assistant wants to run a command:\n  $ {}\n",
            escape_controls(command)
        )
    } else {
        format!(
            "\nThe assistant wants to call {}:\n  {}\n",
            escape_controls(tool),
            escape_controls(command)
        )
    };
    if let Some(rule) = rule {
        text.push_str(&format!("  (asked by {})\n", escape_controls(rule)));
    }
    text
}

/// What happened to a question asked by [`ask`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Asked {
    /// Answered (or timed out, or end of input).
    Answered(Answer),
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
    let prompt = format!(
        "Allow? [y/N, a = always in this conversation, r = always (a rule)] ({seconds} s) "
    );
    write!(
        out,
        "{}",
        question_text(
            &request.command,
            request.is_command,
            &request.tool,
            request.rule.as_deref()
        )
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
            Input::Line(line) => {
                let (answer, note) = answer_of(&line);
                (Asked::Answered(answer), note.to_owned())
            }
            Input::Closed => (Asked::Answered(Answer::Deny), "denied (end of input)".to_owned()),
            Input::Interrupted => (Asked::Interrupted, "denied (interrupted)".to_owned()),
        },
        () = tokio::time::sleep(request.timeout) => {
            (Asked::Answered(Answer::Deny), format!("denied (no answer within {seconds} s)"))
        }
        () = request.reply.closed() => {
            // The tool gave up: its own deadline (the same timeout) or a cancelled turn.
            let note = if asked_at.elapsed() + Duration::from_millis(100) >= request.timeout {
                format!("denied (no answer within {seconds} s)")
            } else {
                "denied (no longer needed)".to_owned()
            };
            (Asked::Answered(Answer::Deny), note)
        }
        Some(()) = interrupts.recv() => (Asked::Interrupted, "denied (interrupted)".to_owned()),
    };
    writeln!(out, "\n→ {note}")?;
    let answer = match asked {
        Asked::Answered(answer) => answer,
        Asked::Interrupted => Answer::Deny,
    };
    let _ = request.reply.send(answer);
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
            let question = question_text(
                request.command,
                request.is_command,
                request.tool,
                request.rule,
            );
            let _ = write!(stderr, "{question}{note}Allow? [y/N] ({seconds} s) ")
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
