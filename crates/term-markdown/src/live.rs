//! Drawing the composed answer on a terminal as it streams: committed lines are
//! printed once; the open unit's lines are redrawn in place from the first line that
//! changed (the cursor moved up over them only, then the rest of the screen cleared).
//! On a width change the open lines are counted as the terminal re-flowed them, and
//! drawn again at the new width.

use crate::compose::{Composer, Extension, Tail};
use crate::highlight::Highlighter;
use crate::style::{Line, Look, line_string, line_width, push_text, text_width};

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
    /// The open lines on the screen; the cursor is at the end of the last.
    shown: Vec<Shown>,
    /// The size the open lines were drawn at.
    drawn_at: Option<Size>,
}

impl LiveMarkdown {
    /// A renderer styling with ANSI escapes when `ansi` (cursor movement is always
    /// used: this is for terminals), highlighting code with `highlighter`.
    pub fn new(highlighter: Highlighter, ansi: bool) -> Self {
        Self {
            composer: Composer::new(highlighter),
            ansi,
            shown: Vec::new(),
            drawn_at: None,
        }
    }

    /// Adds streamed text; returns what to print.
    pub fn push(&mut self, text: &str, size: Size) -> String {
        let mut committed = Vec::new();
        let same_size = self.drawn_at.replace(size) == Some(size);
        if same_size && self.composer.hold(text) {
            return String::new();
        }
        match self.composer.extend(text, size.width) {
            Some(Extension::Grew { line, text }) => {
                if let Some(out) = self.grow(line, text, size) {
                    return out;
                }
                if let Some(out) = self.composer.tail().and_then(|t| self.draw_tail(t, size)) {
                    return out;
                }
            }
            Some(Extension::Lines(tail)) => {
                if let Some(out) = self.draw_tail(tail, size) {
                    return out;
                }
            }
            None => self.composer.feed(text, size.width, &mut committed),
        }
        let mut open = self.composer.open_lines(size.width);
        let mut widths: Vec<usize> = open.iter().map(|l| line_width(l)).collect();
        // The cursor can only move up within the screen: what would not fit is
        // committed as it stands.
        let room = size.height.saturating_sub(2).max(1);
        let mut rows = rows_of(widths.iter().copied(), size.width);
        let mut frozen = 0;
        while rows > room && frozen + 1 < open.len() {
            rows -= rows_of([widths[frozen]], size.width);
            frozen += 1;
        }
        if frozen > 0 {
            self.composer.freeze(frozen);
            committed.extend(open.drain(..frozen));
            widths.drain(..frozen);
        }
        self.draw(&committed, open, &widths, size.width)
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
        self.draw(&committed, Vec::new(), &[], size.width)
    }

    /// Whether open lines are on the screen (the cursor is not at a line start).
    pub fn is_open(&self) -> bool {
        !self.shown.is_empty()
    }

    /// Finishes the last shown line, `line`, by printing the plain `text` it gained,
    /// when it stays on its rows; else `None` (nothing drawn).
    fn grow(&mut self, line: usize, text: String, size: Size) -> Option<String> {
        if line + 1 != self.shown.len() {
            return None;
        }
        // The open lines must still fit on the screen (its height may have changed).
        let room = size.height.saturating_sub(2).max(1);
        if rows_of(self.shown.iter().map(|l| l.width), size.width) > room {
            return None;
        }
        let shown = self.shown.last_mut()?;
        let width = shown.width + text_width(&text);
        if rows_of([width], size.width) != rows_of([shown.width], size.width) {
            return None;
        }
        if !text.is_empty() {
            push_text(&mut shown.line, &text, Look::PLAIN);
            shown.text.push_str(&text);
            shown.width = width;
        }
        Some(text)
    }

    /// Replaces the shown open lines from `tail.from` on by `tail.lines` when they fit
    /// on the screen (else `None`: nothing drawn). A line that only grew is finished by
    /// printing what it gained, without moving the cursor.
    fn draw_tail(&mut self, tail: Tail, size: Size) -> Option<String> {
        let Tail { from, lines } = tail;
        if self.shown.is_empty() || from > self.shown.len() || from + lines.len() < self.shown.len()
        {
            return None;
        }
        let widths: Vec<usize> = lines.iter().map(|l| line_width(l)).collect();
        let room = size.height.saturating_sub(2).max(1);
        let kept = rows_of(self.shown[..from].iter().map(|l| l.width), size.width);
        if kept + rows_of(widths.iter().copied(), size.width) > room {
            return None;
        }
        let same = self.shown[from..]
            .iter()
            .zip(&lines)
            .take_while(|(shown, line)| shown.line == **line)
            .count();
        let first = from + same;
        let mut out = String::new();
        let mut lines = lines.into_iter().zip(widths).skip(same);
        if first + 1 == self.shown.len() {
            // The last line shown changed: extended in place when it only grew.
            let (line, width) = lines.next()?;
            let text = line_string(&line, self.ansi);
            let shown = &self.shown[first];
            match text.strip_prefix(shown.text.as_str()) {
                Some(gained) => out.push_str(gained),
                None => {
                    let up = rows_of([shown.width], size.width) - 1;
                    out.push('\r');
                    if up > 0 {
                        out.push_str(&format!("\x1b[{up}A"));
                    }
                    out.push_str("\x1b[J");
                    out.push_str(&text);
                }
            }
            self.shown[first] = Shown { line, text, width };
        } else if first < self.shown.len() {
            return None;
        }
        for (line, width) in lines {
            let text = line_string(&line, self.ansi);
            out.push('\n');
            out.push_str(&text);
            self.shown.push(Shown { line, text, width });
        }
        Some(out)
    }

    /// Replaces the shown open lines by `committed` then `open` (whose display widths
    /// are `widths`). Lines equal to those shown are not printed again.
    fn draw(
        &mut self,
        committed: &[Line],
        open: Vec<Line>,
        widths: &[usize],
        width: usize,
    ) -> String {
        let count = committed.len() + open.len();
        let same = self
            .shown
            .iter()
            .zip(committed.iter().chain(&open))
            .take_while(|(shown, line)| shown.line == **line)
            .count();
        // Lines dropped at the end: draw the last kept one again, so that the cursor
        // ends after it.
        let same = if same == count && same < self.shown.len() {
            same.saturating_sub(1)
        } else {
            same
        };
        let mut out = String::new();
        if same < self.shown.len() {
            // Back to the start of the first changed line, and clear from there.
            let up = rows_of(self.shown[same..].iter().map(|l| l.width), width) - 1;
            out.push('\r');
            if up > 0 {
                out.push_str(&format!("\x1b[{up}A"));
            }
            out.push_str("\x1b[J");
        } else if !self.shown.is_empty() && same < count {
            out.push('\n');
        }
        let mut texts: Vec<Option<String>> = Vec::with_capacity(open.len());
        for (i, line) in committed.iter().chain(&open).enumerate().skip(same) {
            if i > same {
                out.push('\n');
            }
            let text = line_string(line, self.ansi);
            out.push_str(&text);
            if i >= committed.len() {
                texts.push(Some(text));
            }
        }
        if open.is_empty() && count > 0 {
            out.push('\n');
        }
        let mut old = std::mem::take(&mut self.shown)
            .into_iter()
            .skip(committed.len());
        let unchanged = same.saturating_sub(committed.len());
        let mut texts = texts.into_iter();
        self.shown = open
            .into_iter()
            .zip(widths)
            .enumerate()
            .map(|(j, (line, width))| {
                let text = if j < unchanged {
                    old.next().map(|s| s.text)
                } else {
                    texts.next().flatten()
                };
                Shown {
                    text: text.unwrap_or_default(),
                    width: *width,
                    line,
                }
            })
            .collect();
        out
    }
}

/// A line on the screen, as printed.
#[derive(Debug)]
struct Shown {
    line: Line,
    text: String,
    width: usize,
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
