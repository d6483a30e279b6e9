//! Where the chat's input comes from: a line editor on a terminal
//! ([`super::editor::EditorInput`]), or the lines of a pipe or file ([`PipedInput`]).

use tokio::io::{AsyncBufRead, AsyncBufReadExt, Lines};

/// One entry of the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A message or a command (a line editor's may span several lines).
    Line(String),
    /// Ctrl+C.
    Interrupted,
    /// End of input (Ctrl+D, or the pipe closed).
    Closed,
}

/// A source of the person's entries.
#[allow(
    async_fn_in_trait,
    reason = "its implementations are this crate's and are driven on one task: no Send bound is wanted"
)]
pub trait LineSource {
    /// Whether the source draws the prompt itself (a line editor does; for a pipe the
    /// REPL prints it).
    fn draws_prompt(&self) -> bool;

    /// The next entry, read after showing `prompt`. Cancel-safe: an entry being read
    /// when the future is dropped is returned by the next call.
    async fn read(&mut self, prompt: &str) -> std::io::Result<Input>;

    /// Throws away whatever was typed but not read yet, so that nothing typed before a
    /// question is taken as its answer.
    fn discard_pending(&mut self);

    /// The conversation ids offered when completing `/switch` (sources without
    /// completion ignore them).
    fn offer_conversations(&mut self, _ids: Vec<String>) {}

    /// The MCP resources (`server:uri`) offered after `@`, and the prompt commands
    /// (`/server:prompt `) offered with the slash commands (sources without completion
    /// ignore them).
    fn offer_mcp(&mut self, _resources: Vec<String>, _prompts: Vec<String>) {}
}

/// Lines of a pipe or a file, one entry each.
pub struct PipedInput<R: AsyncBufRead + Unpin> {
    lines: Lines<R>,
}

impl<R: AsyncBufRead + Unpin> PipedInput<R> {
    /// Entries from `reader`.
    pub fn new(reader: R) -> Self {
        Self {
            lines: reader.lines(),
        }
    }
}

impl<R: AsyncBufRead + Unpin> LineSource for PipedInput<R> {
    fn draws_prompt(&self) -> bool {
        false
    }

    async fn read(&mut self, _prompt: &str) -> std::io::Result<Input> {
        // `next_line` is cancel-safe.
        Ok(match self.lines.next_line().await? {
            Some(line) => Input::Line(line),
            None => Input::Closed,
        })
    }

    fn discard_pending(&mut self) {
        // A pipe's lines were written on purpose, answers included.
    }
}
