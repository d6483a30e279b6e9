//! Drawing the composed answer on a terminal as it streams: committed lines are
//! printed once; the open unit's lines are redrawn in place from the first line that
//! changed (the cursor moved up over them only, then the rest of the screen cleared).
//! On a width change the open lines are counted as the terminal re-flowed them, and
//! drawn again at the new width.

use crate::compose::Composer;
use crate::highlight::Highlighter;
use crate::style::{Line, line_string, line_width};

/// The terminal's size in character cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
}

impl Size {
    /// The size used when the terminal does not say (80×24).
    pub const FALLBACK: Self = Self {
        width: 80,
        height: 24,
    };
}

/// An answer rendered live: feed it the streamed text, print what it returns.
#[derive(Debug)]
pub struct LiveMarkdown {
    composer: Composer,
    ansi: bool,
    /// The open lines on the screen (text as printed, display width); the cursor is at
    /// the end of the last.
    shown: Vec<(String, usize)>,
}

impl LiveMarkdown {
    /// A renderer styling with ANSI escapes when `ansi` (cursor movement is always
    /// used: this is for terminals), highlighting code with `highlighter`.
    pub fn new(highlighter: Highlighter, ansi: bool) -> Self {
        Self {
            composer: Composer::new(highlighter),
            ansi,
            shown: Vec::new(),
        }
    }

    /// Adds streamed text; returns what to print.
    pub fn push(&mut self, text: &str, size: Size) -> String {
        let mut committed = Vec::new();
        self.composer.feed(text, size.width, &mut committed);
        let mut open = self.composer.open_lines(size.width);
        // The cursor can only move up within the screen: what would not fit is
        // committed as it stands.
        let room = size.height.saturating_sub(2).max(1);
        let mut rows = rows_of(open.iter().map(|l| line_width(l)), size.width);
        let mut frozen = 0;
        while rows > room && frozen + 1 < open.len() {
            rows -= rows_of([line_width(&open[frozen])], size.width);
            frozen += 1;
        }
        if frozen > 0 {
            self.composer.freeze(frozen);
            committed.extend(open.drain(..frozen));
        }
        self.draw(&committed, &open, size.width)
    }

    /// Draws the open lines again at a new size (the terminal was resized).
    pub fn resize(&mut self, size: Size) -> String {
        self.push("", size)
    }

    /// Commits the rest (the answer ended or stops for a tool call); returns what to
    /// print, which ends with a line break when anything was printed. The next text
    /// starts a new answer.
    pub fn finish(&mut self, size: Size) -> String {
        let mut committed = Vec::new();
        self.composer.finish(size.width, &mut committed);
        self.draw(&committed, &[], size.width)
    }

    /// Whether open lines are on the screen (the cursor is not at a line start).
    pub fn is_open(&self) -> bool {
        !self.shown.is_empty()
    }

    /// Replaces the shown open lines by `committed` then `open`.
    fn draw(&mut self, committed: &[Line], open: &[Line], width: usize) -> String {
        let mut new: Vec<(String, usize)> = committed
            .iter()
            .chain(open)
            .map(|l| (line_string(l, self.ansi), line_width(l)))
            .collect();
        let same = self
            .shown
            .iter()
            .zip(&new)
            .take_while(|(a, b)| a == b)
            .count();
        // Lines dropped at the end: draw the last kept one again, so that the cursor
        // ends after it.
        let same = if same == new.len() && same < self.shown.len() {
            same.saturating_sub(1)
        } else {
            same
        };
        let mut out = String::new();
        if same < self.shown.len() {
            // Back to the start of the first changed line, and clear from there.
            let up = rows_of(self.shown[same..].iter().map(|l| l.1), width) - 1;
            out.push('\r');
            if up > 0 {
                out.push_str(&format!("\x1b[{up}A"));
            }
            out.push_str("\x1b[J");
        } else if !self.shown.is_empty() && same < new.len() {
            out.push('\n');
        }
        let rest: Vec<&str> = new[same.min(new.len())..]
            .iter()
            .map(|l| l.0.as_str())
            .collect();
        out.push_str(&rest.join("\n"));
        if open.is_empty() && !new.is_empty() {
            out.push('\n');
        }
        self.shown = new.split_off(committed.len().min(new.len()));
        out
    }
}

/// Rows that lines of these display widths take in `width` columns (a line wider than
/// the terminal wraps).
fn rows_of(widths: impl IntoIterator<Item = usize>, width: usize) -> usize {
    let width = width.max(1);
    widths.into_iter().map(|w| w.div_ceil(width).max(1)).sum()
}

/// A whole Markdown text rendered at once (a stored answer): its lines joined by line
/// breaks, no cursor movement, no trailing line break.
pub fn render_document(text: &str, width: usize, ansi: bool, highlighter: &Highlighter) -> String {
    let mut composer = Composer::new(highlighter.clone());
    let mut lines = Vec::new();
    composer.feed(text, width, &mut lines);
    composer.finish(width, &mut lines);
    lines
        .iter()
        .map(|l| line_string(l, ansi))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
