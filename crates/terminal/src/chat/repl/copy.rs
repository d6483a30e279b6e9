//! `/copy`: the last answer put on the clipboard through the terminal (OSC 52), which
//! works over SSH and inside tmux where the terminal allows programs to set it.

use std::io::Write;

use base64::Engine as _;
use smallebot_core::entities::{HistoryRow, Role};

use super::Repl;
use crate::error::TerminalError;

/// The escape sequence that asks the terminal to put `text` on the clipboard.
pub(super) fn osc52(text: &str) -> String {
    let payload = base64::engine::general_purpose::STANDARD.encode(text);
    format!("\x1b]52;c;{payload}\x07")
}

impl<W: Write> Repl<W> {
    /// `/copy`: the conversation's last answer to the clipboard.
    pub(super) async fn copy(&mut self) -> Result<(), TerminalError> {
        if !self.terminal {
            return self.say("/copy needs a terminal: it asks the terminal to set the clipboard");
        }
        let Some(conversation) = self.conversation else {
            return self.say("nothing to copy: this conversation has no answer yet");
        };
        let rows = self.service.store().rows_after(conversation, 0).await?;
        let answer = rows.iter().rev().find_map(|row| match row {
            HistoryRow::Message(m)
                if m.role == Role::Assistant
                    && m.replaced_by.is_none()
                    && !m.content.trim().is_empty() =>
            {
                Some(m.content.clone())
            }
            _ => None,
        });
        let Some(answer) = answer else {
            return self.say("nothing to copy: this conversation has no answer yet");
        };
        write!(self.printer.out(), "{}", osc52(&answer))?;
        self.printer.out().flush()?;
        let line = format!(
            "copied the last answer ({} characters) — if the clipboard did not change, \
             allow programs to set it in your terminal (OSC 52; in tmux: set -g \
             set-clipboard on)",
            answer.chars().count()
        );
        self.say(&line)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_clipboard_sequence_carries_the_text_in_base64() {
        assert_eq!(super::osc52("hi ✓"), "\x1b]52;c;aGkg4pyT\x07");
    }
}
