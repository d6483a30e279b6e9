//! The open paragraph of a streamed answer, wrapped as its text arrives: plain text is
//! added to it without parsing it again, and a piece carrying inline markup parses
//! again only the text after the last point where everything before is settled (a
//! space after which no markup is left open).

use unicode_width::UnicodeWidthStr;

use crate::layout::{MIN_WIDTH, prefixed};
use crate::split::{last_line_settled, leaves_markup_open};
use crate::style::{Line, Look, Span};
use crate::tree::{Block, parse};
use crate::wrap::{Mark, Wrapper};

/// An open paragraph (or a list whose last item ends with one paragraph, in lists as
/// deep as they go) wrapped up to `source_len` bytes of the open unit, laid out at
/// `width`.
#[derive(Debug)]
pub(crate) struct OpenParagraph {
    pub source_len: usize,
    pub width: usize,
    /// The lines of the open unit before the paragraph.
    pub before: Vec<Line>,
    /// What stands before the paragraph's first line, one span for each list it is in
    /// (outermost first): its item's marker, or the indent under an outer item.
    pub markers: Vec<Span>,
    pub wrapper: Wrapper,
    /// No text wrapped so far shows markup that later text could still close (an
    /// unmatched `*`, a `[` not made a link…).
    settled: bool,
    /// The last point of the open unit (in bytes) where the paragraph was settled and
    /// a space had just been added, with the wrapper as it was there.
    mark: Option<(usize, Mark)>,
}

impl OpenParagraph {
    /// The paragraph `spans` (parsed from the open unit `source`) wrapped at `width`
    /// behind `markers` (its list items'), after the lines `before` it.
    pub fn new(
        spans: &[Span],
        source: &str,
        markers: Vec<Span>,
        before: Vec<Line>,
        width: usize,
    ) -> Self {
        // Each list narrows the column by its marker, down to the narrowest allowed.
        let column = markers.iter().fold(width.max(MIN_WIDTH), |column, marker| {
            (column - marker.text.width().min(column)).max(MIN_WIDTH)
        });
        let mut open = Self {
            source_len: 0,
            width,
            before,
            markers,
            wrapper: Wrapper::new(column),
            settled: true,
            mark: None,
        };
        open.wrap(spans, source);
        open
    }

    /// Wraps `spans`, parsed from `source` (the open unit), on from where the wrapper
    /// is; marks the end when it is settled after a space.
    fn wrap(&mut self, spans: &[Span], source: &str) {
        for span in spans {
            self.wrapper.push(&span.text, span.look);
            self.settled &= !leaves_markup_open(&span.text);
        }
        // The parser drops the white space the paragraph ends with.
        if source.ends_with(char::is_whitespace) {
            self.wrapper.push(" ", Look::PLAIN);
        }
        self.source_len = source.len();
        if source.ends_with(' ') {
            self.mark_end();
        }
    }

    /// Adds plain text (see `extends_plainly`), the open unit being `source_len` bytes
    /// long before it; marks the point after its last space.
    pub fn push_plain(&mut self, text: &str) {
        match text.rfind(' ') {
            Some(space) => {
                self.wrapper.push(&text[..=space], Look::PLAIN);
                self.source_len += space + 1;
                self.mark_end();
                self.wrapper.push(&text[space + 1..], Look::PLAIN);
                self.source_len += text.len() - space - 1;
            }
            None => {
                self.wrapper.push(text, Look::PLAIN);
                self.source_len += text.len();
            }
        }
    }

    fn mark_end(&mut self) {
        if self.settled
            && let Some(mark) = self.wrapper.mark()
        {
            self.mark = Some((self.source_len, mark));
        }
    }

    /// The line of the paragraph (among the wrapper's) the last mark is on: the first
    /// that [`OpenParagraph::reparse`] may change.
    pub fn marked_line(&self) -> Option<usize> {
        self.mark.map(|(_, mark)| mark.line())
    }

    /// Wraps the open unit `source` again from the last mark: the text after it
    /// parsed alone, when it is on the mark's line and parses as one paragraph (then
    /// it is the same as parsing the whole unit: before the mark nothing is left open,
    /// and a space stands between). `false` (nothing changed) otherwise.
    pub fn reparse(&mut self, source: &str) -> bool {
        let Some((at, mark)) = self.mark else {
            return false;
        };
        let Some(after) = source.get(at..) else {
            return false;
        };
        // The line must have its kind settled before the mark; a line break could make
        // it a heading's underline or a table's head; a `<` could open HTML spanning
        // the mark; a link reference defined before it could make a link after it.
        let before = &source[..at];
        if after.contains(['\n', '<']) || !last_line_settled(before) || before.contains("]:") {
            return false;
        }
        let blocks = parse(after);
        let [Block::Paragraph(spans)] = blocks.as_slice() else {
            return false;
        };
        self.wrapper.rewind(mark);
        self.settled = true;
        self.wrap(spans, source);
        true
    }

    /// Its lines as the layout draws them.
    pub fn lines(&self) -> Vec<Line> {
        let mut lines = self.before.clone();
        lines.extend(self.own_lines(0));
        lines
    }

    /// The paragraph's lines from line `from` on (at most the wrapper's finished lines),
    /// behind the markers as the layout puts them (the innermost first).
    pub fn own_lines(&self, from: usize) -> Vec<Line> {
        let mut lines = self.wrapper.lines_from(from);
        for marker in self.markers.iter().rev() {
            let rest = Span::plain(" ".repeat(marker.text.width()));
            let first = if from == 0 {
                marker.clone()
            } else {
                rest.clone()
            };
            lines = prefixed(lines, first, Some(rest));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paragraph(source: &str) -> OpenParagraph {
        let blocks = parse(source);
        let [Block::Paragraph(spans)] = blocks.as_slice() else {
            panic!("{source:?} is one paragraph");
        };
        OpenParagraph::new(spans, source, Vec::new(), Vec::new(), 30)
    }

    #[test]
    fn markup_parses_again_only_after_the_last_settled_space() {
        let cases = [
            // Settled before the mark: the text after it parsed alone.
            ("Plain words here and ", "more **bold** end", true),
            ("Some *em* done ", "then `code`", true),
            // Markup left open before the mark, or a line break, or HTML after it.
            ("Plain *open here ", "and* more", false),
            ("Plain [words here ", "and](u)", false),
            ("Plain words here ", "and\nmore", false),
            ("Plain words here ", "<b>x</b>", false),
            // Not one paragraph alone (a list item would start).
            ("Plain words here ", "- x", false),
            // A link reference defined before the mark.
            ("[a]: /u\nPlain words here ", "[a] x", false),
        ];
        for (before, after, again) in cases {
            let mut open = paragraph(before);
            let source = format!("{before}{after}");
            assert_eq!(open.reparse(&source), again, "{source:?}");
            if again {
                assert_eq!(open.lines(), paragraph(&source).lines(), "{source:?}");
            }
        }
        // Plain text marks the point after its last space.
        let mut open = paragraph("Plain *em* words");
        open.push_plain(" and more");
        let source = "Plain *em* words and more **b**";
        assert!(open.reparse(source));
        assert_eq!(open.lines(), paragraph(source).lines());
    }
}
