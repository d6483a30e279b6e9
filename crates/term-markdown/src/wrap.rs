//! Word wrap of styled text to a width in display columns: lines break at spaces, runs
//! of spaces become one, `\n` forces a break; only a word wider than the whole width is
//! cut (a long URL), at the width.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::style::{Line, Look, Span, push_text, text_width};

/// Wraps `spans` into lines of at most `width` columns (at least 1).
pub fn wrap(spans: &[Span], width: usize) -> Vec<Line> {
    let mut wrapper = Wrapper::new(width);
    for span in spans {
        wrapper.push(&span.text, span.look);
    }
    wrapper.into_lines()
}

/// A point in what a [`Wrapper`] was pushed, to take it back to
/// ([`Wrapper::rewind`]): taken between words.
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    lines: usize,
    spans: usize,
    last: usize,
    line_width: usize,
    gap: Option<Look>,
}

impl Mark {
    /// The line the mark is on (the number of lines finished then).
    pub fn line(&self) -> usize {
        self.lines
    }
}

/// Word wrap fed piece by piece: the lines of all the text pushed so far are the same
/// as [`wrap`] of it at once.
#[derive(Debug, Clone)]
pub struct Wrapper {
    width: usize,
    lines: Vec<Line>,
    line: Line,
    line_width: usize,
    word: Line,
    word_width: usize,
    /// A space (and its look) waiting between the line and the next word.
    gap: Option<Look>,
}

impl Wrapper {
    /// An empty wrapper for lines of `width` columns (at least 1).
    pub fn new(width: usize) -> Self {
        Self {
            width: width.max(1),
            lines: Vec::new(),
            line: Vec::new(),
            line_width: 0,
            word: Vec::new(),
            word_width: 0,
            gap: None,
        }
    }

    /// The width wrapped to.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Adds text in one look.
    pub fn push(&mut self, text: &str, look: Look) {
        let mut rest = text;
        while !rest.is_empty() {
            let end = rest.find([' ', '\t', '\n']).unwrap_or(rest.len());
            if end > 0 {
                let run = &rest[..end];
                push_text(&mut self.word, run, look);
                self.word_width += text_width(run);
                rest = &rest[end..];
                continue;
            }
            self.place_word();
            if rest.starts_with('\n') {
                self.break_line();
            } else if self.line_width > 0 {
                self.gap = Some(look);
            }
            rest = &rest[1..];
        }
    }

    /// How many lines are finished: text pushed later never changes them.
    pub fn finished(&self) -> usize {
        self.lines.len()
    }

    /// The lines of what was pushed so far from line `from` on (at most
    /// [`Wrapper::finished`]): the same as `lines()[from..]`, without copying the others.
    pub fn lines_from(&self, from: usize) -> Vec<Line> {
        let mut tail = Self {
            width: self.width,
            lines: self.lines[from.min(self.lines.len())..].to_vec(),
            line: self.line.clone(),
            line_width: self.line_width,
            word: self.word.clone(),
            word_width: self.word_width,
            gap: self.gap,
        };
        tail.place_word();
        if !tail.line.is_empty() || self.lines.is_empty() && tail.lines.is_empty() {
            tail.break_line();
        }
        tail.lines
    }

    /// A mark of what was pushed so far; `None` while a word is being read.
    pub fn mark(&self) -> Option<Mark> {
        self.word.is_empty().then(|| Mark {
            lines: self.lines.len(),
            spans: self.line.len(),
            last: self.line.last().map_or(0, |s| s.text.len()),
            line_width: self.line_width,
            gap: self.gap,
        })
    }

    /// Takes back what was pushed after `mark`, one of this wrapper's marks: the lines
    /// are as they were then (text is only ever added to them, so the mark's line is
    /// the first line after those finished then, cut back to its spans then).
    pub fn rewind(&mut self, mark: Mark) {
        if self.lines.len() > mark.lines {
            self.lines.truncate(mark.lines + 1);
            self.line = self.lines.pop().unwrap_or_default();
        }
        self.line.truncate(mark.spans);
        if let Some(last) = self.line.last_mut() {
            last.text.truncate(mark.last);
        }
        self.line_width = mark.line_width;
        self.gap = mark.gap;
        self.word.clear();
        self.word_width = 0;
    }

    /// The bytes of the last line [`Wrapper::lines_from`] would give, when what was
    /// pushed after the finished lines is one line (the word being read fits on it).
    pub fn open_line_len(&self) -> Option<usize> {
        let placed: usize = self.line.iter().map(|s| s.text.len()).sum();
        if self.word.is_empty() {
            return Some(placed);
        }
        let fits = if self.line_width == 0 {
            self.word_width <= self.width
        } else {
            self.line_width + 1 + self.word_width <= self.width
        };
        let gap = usize::from(self.gap.is_some() && self.line_width > 0);
        let word: usize = self.word.iter().map(|s| s.text.len()).sum();
        fits.then_some(placed + gap + word)
    }

    /// The last `bytes` bytes of that one open line (see [`Wrapper::open_line_len`])
    /// when all of them are plain text; `None` when any is styled.
    pub fn open_line_plain_end(&self, bytes: usize) -> Option<String> {
        let gap = self
            .gap
            .filter(|_| self.line_width > 0 && !self.word.is_empty())
            .map(|look| (" ", look));
        let pieces = self
            .word
            .iter()
            .rev()
            .map(|s| (s.text.as_str(), s.look))
            .chain(gap)
            .chain(self.line.iter().rev().map(|s| (s.text.as_str(), s.look)));
        let mut parts = Vec::new();
        let mut left = bytes;
        for (text, look) in pieces {
            if left == 0 {
                break;
            }
            if look != Look::PLAIN {
                return None;
            }
            let take = left.min(text.len());
            parts.push(text.get(text.len() - take..)?);
            left -= take;
        }
        (left == 0).then(|| parts.iter().rev().copied().collect())
    }

    /// The lines of what was pushed so far.
    pub fn lines(&self) -> Vec<Line> {
        self.lines_from(0)
    }

    /// The lines of what was pushed, consuming the wrapper.
    pub fn into_lines(mut self) -> Vec<Line> {
        self.place_word();
        if !self.line.is_empty() || self.lines.is_empty() {
            self.break_line();
        }
        self.lines
    }

    fn break_line(&mut self) {
        self.lines.push(std::mem::take(&mut self.line));
        self.line_width = 0;
        self.gap = None;
    }

    /// Puts the word being read on the line, or on a new one when it does not fit.
    fn place_word(&mut self) {
        if self.word.is_empty() {
            return;
        }
        let word_width = std::mem::take(&mut self.word_width);
        if self.line_width > 0 && self.line_width + 1 + word_width > self.width {
            self.break_line();
        }
        if let Some(look) = self.gap.take().filter(|_| self.line_width > 0) {
            push_text(&mut self.line, " ", look);
            self.line_width += 1;
        }
        if word_width <= self.width - self.line_width {
            // Drained, not taken: the next word reuses the buffer.
            for span in self.word.drain(..) {
                push_text(&mut self.line, &span.text, span.look);
            }
            self.line_width += word_width;
            return;
        }
        // Wider than a whole line: cut at the width.
        for span in std::mem::take(&mut self.word) {
            for c in span.text.chars() {
                let w = c.width().unwrap_or(0);
                if self.line_width + w > self.width && self.line_width > 0 {
                    self.break_line();
                }
                let mut buf = [0u8; 4];
                push_text(&mut self.line, c.encode_utf8(&mut buf), span.look);
                self.line_width += w;
            }
        }
    }
}

/// `text` padded with spaces to `width` columns (left, centre or right).
pub fn pad(line: Line, width: usize, align: Align) -> Line {
    let used: usize = line.iter().map(|s| s.text.width()).sum();
    let free = width.saturating_sub(used);
    let (before, after) = match align {
        Align::Left => (0, free),
        Align::Right => (free, 0),
        Align::Center => (free / 2, free - free / 2),
    };
    let mut out = Vec::with_capacity(line.len() + 2);
    if before > 0 {
        out.push(Span::plain(" ".repeat(before)));
    }
    out.extend(line);
    if after > 0 {
        out.push(Span::plain(" ".repeat(after)));
    }
    out
}

/// Horizontal alignment of a table column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Flush left (the default).
    Left,
    /// Centred.
    Center,
    /// Flush right.
    Right,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::line_string;

    fn plain(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| line_string(l, false)).collect()
    }

    #[test]
    fn words_wrap_at_spaces_and_only_overlong_words_are_cut() {
        let cases: &[(&str, usize, &[&str])] = &[
            ("", 10, &[""]),
            ("one two three", 20, &["one two three"]),
            ("one two three", 7, &["one two", "three"]),
            ("one two three", 3, &["one", "two", "thr", "ee"]),
            ("  lead   and  runs  ", 40, &["lead and runs"]),
            ("hard\nbreak here", 40, &["hard", "break here"]),
            ("abcdefghij", 4, &["abcd", "efgh", "ij"]),
            (
                "see https://example.com/a/b",
                12,
                &["see", "https://exam", "ple.com/a/b"],
            ),
            ("宽字符 wide", 7, &["宽字符", "wide"]),
            ("exactly ten", 11, &["exactly ten"]),
            ("exactly ten", 10, &["exactly", "ten"]),
        ];
        for (text, width, expected) in cases {
            let lines = wrap(&[Span::plain(*text)], *width);
            assert_eq!(plain(&lines), *expected, "{text:?} at {width}");
            for line in &lines {
                assert!(crate::style::line_width(line) <= *width, "{text:?}");
            }
        }
    }

    #[test]
    fn wrapping_piece_by_piece_equals_wrapping_at_once() {
        let text = "Some words, a verylongwordthatiscut and 宽字符 wide ones  here.";
        for width in [1, 5, 9, 20] {
            let whole = wrap(&[Span::plain(text)], width);
            for piece in [1, 2, 3, 7] {
                let mut wrapper = Wrapper::new(width);
                let chars: Vec<char> = text.chars().collect();
                for chunk in chars.chunks(piece) {
                    wrapper.push(&chunk.iter().collect::<String>(), Look::PLAIN);
                    let _ = wrapper.lines();
                }
                assert_eq!(wrapper.lines(), whole, "{width} {piece}");
            }
        }
    }

    #[test]
    fn a_word_split_across_styles_stays_whole() {
        let bold = Look {
            bold: true,
            ..Look::PLAIN
        };
        let spans = [
            Span::plain("aaaa bo"),
            Span::new("ld", bold),
            Span::plain("er end"),
        ];
        let lines = wrap(&spans, 8);
        assert_eq!(plain(&lines), ["aaaa", "bolder", "end"]);
        assert_eq!(lines[1][1], Span::new("ld", bold));
    }

    #[test]
    fn padding_aligns_within_the_width() {
        let cases = [
            (Align::Left, "ab   "),
            (Align::Right, "   ab"),
            (Align::Center, " ab  "),
        ];
        for (align, expected) in cases {
            let line = pad(vec![Span::plain("ab")], 5, align);
            assert_eq!(line_string(&line, false), expected, "{align:?}");
        }
    }
}
