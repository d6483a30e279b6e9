//! Answers rendered as Markdown on a colour terminal, through `smallebot-term-markdown`:
//! live as they stream (finished blocks committed, the open block redrawn in place,
//! wrapped to the terminal's width, read again at every piece of text so that a
//! resize re-flows the open block), and whole for a stored answer (the transcript of
//! a reopened conversation). Without colours answers are their text, escaped.

use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_term_markdown::{Highlighter, LiveMarkdown, Size, render_document};

use super::Style;

/// The size of the terminal standard output is, or 80×24 when it is not one.
pub fn terminal_size() -> Size {
    match rustix::termios::tcgetwinsize(std::io::stdout()) {
        Ok(size) if size.ws_col > 0 && size.ws_row > 0 => Size {
            width: usize::from(size.ws_col),
            height: usize::from(size.ws_row),
        },
        _ => Size::FALLBACK,
    }
}

/// The terminal's resizes (SIGWINCH), where standard output is one.
#[derive(Debug)]
pub struct Resizes(Option<tokio::signal::unix::Signal>);

impl Resizes {
    /// Resizes of the terminal when `terminal` (else none ever come).
    pub fn watch(terminal: bool) -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        Self(
            terminal
                .then(|| signal(SignalKind::window_change()).ok())
                .flatten(),
        )
    }

    /// The next resize; never ready when resizes are not watched.
    pub async fn next(&mut self) -> Option<()> {
        match self.0.as_mut() {
            Some(signal) => signal.recv().await,
            None => std::future::pending().await,
        }
    }
}

/// The streamed answer rendered live on standard output's terminal.
#[derive(Debug)]
pub struct LiveAnswer {
    live: LiveMarkdown,
}

impl LiveAnswer {
    /// A live renderer highlighting code with `highlighter`.
    pub fn new(highlighter: Highlighter) -> Self {
        Self {
            live: LiveMarkdown::new(highlighter, true),
        }
    }

    /// Adds streamed text; returns what to print.
    pub fn push(&mut self, text: &str) -> String {
        self.live.push(text, terminal_size())
    }

    /// Lays the open lines out again at the terminal's new size (it was resized):
    /// what to print. Committed lines stay as they are.
    pub fn resize(&mut self) -> String {
        self.live.resize(terminal_size())
    }

    /// Ends the answer (it ended, or a status line comes): what to print, after which
    /// the cursor is at the start of a line.
    pub fn finish(&mut self) -> String {
        self.live.finish(terminal_size())
    }
}

/// How stored answers are shown: rendered on a colour terminal, else escaped text.
#[derive(Debug, Clone)]
pub struct AnswerView {
    style: Style,
    highlighter: Highlighter,
}

impl AnswerView {
    /// Answers shown in `style`, code highlighted with `highlighter`.
    pub fn new(style: Style, highlighter: Highlighter) -> Self {
        Self { style, highlighter }
    }

    /// One stored answer as shown (no trailing line break).
    pub fn render(&self, text: &str) -> String {
        if self.style.ansi {
            render_document(text, terminal_size().width, true, &self.highlighter)
        } else {
            escape_controls(text).into_owned()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_answers_are_rendered_only_with_colours() {
        let text = "1. **one**\n2. two\n\x1b[2J";
        let cases = [
            (true, "1. \x1b[0m\x1b[1mone\x1b[0m"),
            (false, "1. **one**\n2. two\n^[[2J"),
        ];
        for (ansi, expected) in cases {
            let view = AnswerView::new(Style { ansi }, Highlighter::default());
            let shown = view.render(text);
            assert!(shown.contains(expected), "{ansi}: {shown:?}");
            assert!(!shown.contains("\x1b[2J"), "{shown:?}");
        }
    }
}
