//! The output of `smallebot run`: the answer to standard output, the status lines to
//! standard error (or JSON lines for `--json`).

use std::io::IsTerminal as _;

use super::{EventPrinter, Style};
use crate::stdio::Lossy;

/// The events printed while the turn runs. A failure to print (standard output closed:
/// `| head`) stops the printing, never the turn, which is still stored in full.
pub struct RunOutput<W: std::io::Write> {
    printer: EventPrinter<W>,
    /// The first failure to print, after which nothing more is printed.
    pub failed: Option<std::io::Error>,
}

impl RunOutput<std::io::StdoutLock<'static>> {
    /// The printer of `run`: the answer to standard output; unless JSON lines, the
    /// status lines to standard error. `/show N` is the chat's: `conversations show`
    /// prints a run's tool calls whole.
    pub fn new(json: bool) -> Self {
        let mut printer =
            EventPrinter::new(std::io::stdout().lock(), json, Style::for_stdout()).show_hint(false);
        if !json {
            let on_terminal = std::io::stdout().is_terminal();
            printer = printer
                .status_to(Box::new(Lossy(std::io::stderr())), Style::for_stderr())
                .on_one_screen(on_terminal)
                .wrap_on_terminal(on_terminal)
                // A script reading the answer gets what is stored, never a retried attempt.
                .hold_attempts(!on_terminal);
        }
        Self {
            printer,
            failed: None,
        }
    }
}

impl<W: std::io::Write> RunOutput<W> {
    /// Lays the open lines out again at the terminal's new width.
    pub fn resized(&mut self) {
        if self.failed.is_none()
            && let Err(error) = self.printer.resized()
        {
            self.failed = Some(error);
        }
    }

    /// Prints one event of the turn.
    pub fn print(&mut self, event: &smallebot_application::Event) {
        if self.failed.is_none()
            && let Err(error) = self.printer.print(event)
        {
            self.failed = Some(error);
        }
    }
}
