//! Answering an MCP server's question during a tool call (elicitation) in chat.
//!
//! [`TerminalElicitor`] sends each form over a channel; the REPL's turn loop receives
//! it and [`ask_form`] prints who asks and why, asks `Answer? [Y/n = decline, c =
//! cancel]`, then one line per field (its title, description, type, choices, default);
//! an answer that does not fit the field says why and asks that field again. No answer
//! within the timeout, end of input, or Ctrl+C (which cancels the turn too) does not
//! send anything.

use std::io::Write;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Map;
use smallebot_application::ports::{ElicitationAnswer, ElicitationRequest, Elicitor};
use smallebot_core::rules::elicitation::{Form, field_line, read_field};
use smallebot_core::rules::terminal_text::escape_controls;
use tokio::sync::{mpsc, oneshot};

use super::confirm::Asked;
use super::input::{Input, LineSource};
use smallebot_application::ports::Answer;

/// One form to fill in, answered through its reply channel.
#[derive(Debug)]
pub struct FormRequest {
    server: String,
    message: String,
    form: Form,
    timeout: Duration,
    reply: oneshot::Sender<ElicitationAnswer>,
}

/// The chat REPL's elicitor: forms go to the REPL through a channel.
#[derive(Debug, Clone)]
pub struct TerminalElicitor {
    requests: mpsc::Sender<FormRequest>,
}

impl TerminalElicitor {
    /// An elicitor and the receiver the REPL answers from (see `Repl::with_forms`).
    pub fn channel() -> (Self, mpsc::Receiver<FormRequest>) {
        let (requests, receiver) = mpsc::channel(8);
        (Self { requests }, receiver)
    }
}

#[async_trait]
impl Elicitor for TerminalElicitor {
    async fn elicit(
        &self,
        request: &ElicitationRequest<'_>,
        timeout: Duration,
    ) -> ElicitationAnswer {
        let (reply, answer) = oneshot::channel();
        let request = FormRequest {
            server: request.server.to_owned(),
            message: request.message.to_owned(),
            form: request.form.clone(),
            timeout,
            reply,
        };
        tokio::time::timeout(timeout, async {
            if self.requests.send(request).await.is_err() {
                return ElicitationAnswer::NoOneToAsk;
            }
            answer.await.unwrap_or(ElicitationAnswer::NoOneToAsk)
        })
        .await
        .unwrap_or(ElicitationAnswer::TimedOut)
    }
}

/// How one form ended, with the note printed after it.
enum Filled {
    Answer(ElicitationAnswer, &'static str),
    Interrupted,
}

/// Prints the form of `request` to `out`, reads its answers from `input` and replies.
///
/// # Errors
/// Reading the input or writing the output failed (nothing is sent).
pub(super) async fn ask_form<S, W>(
    mut request: FormRequest,
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
    writeln!(
        out,
        "\nThe MCP server {} asks: {}",
        escape_controls(&request.server),
        escape_controls(&request.message)
    )?;
    let filled = tokio::select! {
        filled = fill(&request.form, seconds, input, out) => filled?,
        () = tokio::time::sleep(request.timeout) => {
            Filled::Answer(ElicitationAnswer::TimedOut, "declined (no answer in time)")
        }
        () = request.reply.closed() => {
            Filled::Answer(ElicitationAnswer::Decline, "no longer needed")
        }
        Some(()) = interrupts.recv() => Filled::Interrupted,
    };
    let (answer, note, asked) = match filled {
        Filled::Answer(answer, note) => (answer, note, Asked::Answered(Answer::Once)),
        Filled::Interrupted => (
            ElicitationAnswer::Cancel,
            "cancelled (interrupted)",
            Asked::Interrupted,
        ),
    };
    writeln!(out, "\n→ {note}")?;
    let _ = request.reply.send(answer);
    Ok(asked)
}

/// Asks whether to answer, then each field until it fits.
async fn fill<S: LineSource, W: Write>(
    form: &Form,
    seconds: u64,
    input: &mut S,
    out: &mut W,
) -> std::io::Result<Filled> {
    let prompt = format!("Answer? [Y/n = decline, c = cancel] ({seconds} s) ");
    match read_line(&prompt, input, out).await? {
        Input::Line(line) => match line.trim().to_ascii_lowercase().as_str() {
            "" | "y" | "yes" => {}
            "c" | "cancel" => return Ok(Filled::Answer(ElicitationAnswer::Cancel, "cancelled")),
            _ => return Ok(Filled::Answer(ElicitationAnswer::Decline, "declined")),
        },
        Input::Closed => return Ok(closed()),
        Input::Interrupted => return Ok(Filled::Interrupted),
    }
    let mut content = Map::new();
    for field in form {
        writeln!(out, "  {}", escape_controls(&field_line(field)))?;
        let prompt = format!("  {}: ", field.name);
        loop {
            let line = match read_line(&prompt, input, out).await? {
                Input::Line(line) => line,
                Input::Closed => return Ok(closed()),
                Input::Interrupted => return Ok(Filled::Interrupted),
            };
            match read_field(field, &line) {
                Ok(value) => {
                    if let Some(value) = value {
                        content.insert(field.name.clone(), value);
                    }
                    break;
                }
                Err(problem) => writeln!(out, "  {}; try again", escape_controls(&problem))?,
            }
        }
    }
    Ok(Filled::Answer(ElicitationAnswer::Accept(content), "sent"))
}

/// The end of input: nothing sent.
fn closed() -> Filled {
    Filled::Answer(ElicitationAnswer::Decline, "declined (end of input)")
}

/// One line read with `prompt` (printed here when the input does not draw it).
async fn read_line<S: LineSource, W: Write>(
    prompt: &str,
    input: &mut S,
    out: &mut W,
) -> std::io::Result<Input> {
    if !input.draws_prompt() {
        write!(out, "{prompt}")?;
    }
    out.flush()?;
    input.read(prompt).await
}

#[cfg(test)]
#[path = "elicit_tests.rs"]
mod tests;
