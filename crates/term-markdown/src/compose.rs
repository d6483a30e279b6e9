//! The answer composed unit by unit: finished units become committed lines (never
//! changed after), the open unit's lines are recomputed at each call. No escapes for
//! the cursor here: [`crate::LiveMarkdown`] draws what this composes.

use crate::highlight::{CodeBlock, Highlighter, plain_code};
use crate::layout::{Layout, MIN_WIDTH, code_close, code_line, code_open};
use crate::paragraph::OpenParagraph;
use crate::split::{
    Fence, Unit, drawn_by_line, extends_plainly, fence_language, next_unit, opening_fence,
};
use crate::style::Line;
use crate::tree::{Block, parse};

/// Streamed Markdown cut into committed lines and the open unit's lines.
#[derive(Debug, Default)]
pub struct Composer {
    highlighter: Highlighter,
    /// The text after the last finished unit.
    pending: String,
    /// The code block being read.
    fence: Option<(Fence, CodeBlock)>,
    /// A blank line waits before the next content.
    blank: bool,
    /// Something was committed (blank lines before it are dropped).
    started: bool,
    /// The number the next top-level ordered item gets (a list streamed item by item).
    next_number: Option<u64>,
    /// Lines of the open unit already committed (it grew taller than the screen).
    frozen: usize,
    /// The open unit when it is one paragraph: wrapped so far, extended by plain text
    /// without parsing it again.
    paragraph: Option<OpenParagraph>,
}

/// The open unit's lines from the first that changed, after [`Composer::extend`].
#[derive(Debug)]
pub struct Tail {
    /// The index, among [`Composer::open_lines`], of the first line that may have
    /// changed: those before it are as they were.
    pub from: usize,
    /// The open lines from `from` on.
    pub lines: Vec<Line>,
}

/// What [`Composer::extend`] changed in the open lines.
#[derive(Debug)]
pub enum Extension {
    /// Lines from the first that may have changed.
    Lines(Tail),
    /// Only the open line `line` (an index among [`Composer::open_lines`]) changed: it
    /// ends with `text` more, plain (no styles), and is otherwise as it was.
    Grew {
        /// The line's index.
        line: usize,
        /// What it gained (maybe nothing).
        text: String,
    },
}

impl Composer {
    /// A composer highlighting code with `highlighter`.
    pub fn new(highlighter: Highlighter) -> Self {
        Self {
            highlighter,
            ..Self::default()
        }
    }

    /// Adds streamed text; the lines of units it finished go to `committed`.
    pub fn feed(&mut self, text: &str, width: usize, committed: &mut Vec<Line>) {
        self.pending.push_str(text);
        while let Some((unit, len)) = next_unit(&self.pending, self.fence.as_ref().map(|f| f.0)) {
            let rest = self.pending.split_off(len);
            let source = std::mem::replace(&mut self.pending, rest);
            self.commit(unit, &source, width, committed);
        }
    }

    /// Adds streamed text that only extends the open paragraph (no line break, plain
    /// text: see [`extends_plainly`]) or the open line of a code block, and returns the
    /// open lines from the first that
    /// changed; `None` (and nothing added) when it does not, or when the open lines were
    /// not drawn by [`Composer::open_lines`] at this width since the last change: then
    /// [`Composer::feed`] it.
    pub fn extend(&mut self, text: &str, width: usize) -> Option<Extension> {
        if self.fence.is_some() {
            return self.extend_code(text);
        }
        let open = self.paragraph.as_mut()?;
        if self.fence.is_some()
            || open.width != width.max(MIN_WIDTH)
            || open.source_len != self.pending.len()
            || self.pending.trim().is_empty()
            || text.contains('\n')
        {
            return None;
        }
        if !extends_plainly(&self.pending, text) {
            return self.extend_markup(text);
        }
        let finished = open.wrapper.finished();
        let first = open.before.len() + finished;
        if first < self.frozen {
            return None;
        }
        let drawn = open.wrapper.open_line_len();
        self.pending.push_str(text);
        open.push_plain(text);
        let from = first - self.frozen + usize::from(self.blank);
        // The open line only grew by plain text: what it gained is all there is to draw
        // (a line with no text yet is drawn whole: its prefix stands alone).
        let gained = match (drawn, open.wrapper.open_line_len()) {
            (Some(drawn), Some(now)) if drawn > 0 && now >= drawn => {
                open.wrapper.open_line_plain_end(now - drawn)
            }
            _ => None,
        };
        Some(match gained {
            Some(text) if open.wrapper.finished() == finished => {
                Extension::Grew { line: from, text }
            }
            _ => Extension::Lines(Tail {
                from,
                lines: open.own_lines(finished),
            }),
        })
    }

    /// Adds text carrying markup to the open paragraph when it parses again from its
    /// last settled point (see [`OpenParagraph::reparse`]): its lines from that
    /// point's on. `None` (and nothing added) otherwise.
    fn extend_markup(&mut self, text: &str) -> Option<Extension> {
        let open = self.paragraph.as_mut()?;
        let line = open.marked_line()?;
        let first = (open.before.len() + line).checked_sub(self.frozen)?;
        let len = self.pending.len();
        self.pending.push_str(text);
        if !open.reparse(&self.pending) {
            self.pending.truncate(len);
            return None;
        }
        Some(Extension::Lines(Tail {
            from: first + usize::from(self.blank),
            lines: open.own_lines(line),
        }))
    }

    /// The open paragraph's lines from the first that [`Composer::extend`] may have
    /// changed (when it said only that a line grew, and that cannot be drawn alone).
    pub fn tail(&self) -> Option<Tail> {
        let open = self.paragraph.as_ref()?;
        let finished = open.wrapper.finished();
        let first = (open.before.len() + finished).checked_sub(self.frozen)?;
        Some(Tail {
            from: first + usize::from(self.blank),
            lines: open.own_lines(finished),
        })
    }

    /// Adds text that ends no line to the open line of a code block when it is shown (not
    /// blank, not frozen): its one line drawn again (highlighted once it ends).
    fn extend_code(&mut self, text: &str) -> Option<Extension> {
        if self.frozen > 0
            || text.is_empty()
            || text.contains('\n')
            || self.pending.trim().is_empty()
        {
            return None;
        }
        self.pending.push_str(text);
        Some(Extension::Lines(Tail {
            from: usize::from(self.blank),
            lines: vec![code_line(plain_code(&self.pending))],
        }))
    }

    /// Adds streamed text that ends no line to an open table or quote, which is drawn
    /// again only when a line ends ([`drawn_by_line`]): its open lines stay as drawn.
    /// `false` (and nothing added) otherwise: then [`Composer::feed`] it.
    pub fn hold(&mut self, text: &str) -> bool {
        let held = self.fence.is_none()
            && !text.is_empty()
            && !text.contains('\n')
            && !self.pending.trim().is_empty()
            && drawn_by_line(&self.pending);
        if held {
            self.pending.push_str(text);
        }
        held
    }

    /// Commits what is left (the answer ended) and starts over.
    pub fn finish(&mut self, width: usize, committed: &mut Vec<Line>) {
        // The last line is complete now: split it as any other.
        if !self.pending.is_empty() && !self.pending.ends_with('\n') {
            self.feed("\n", width, committed);
        }
        let rest = std::mem::take(&mut self.pending);
        if self.fence.is_some() {
            if !rest.is_empty() {
                self.commit(Unit::CodeLine, &rest, width, committed);
            }
            self.commit(Unit::FenceClose, "", width, committed);
        } else if !rest.trim().is_empty() {
            self.commit(Unit::Markdown, &rest, width, committed);
        }
        *self = Self::new(self.highlighter.clone());
    }

    /// The open unit's lines (without those already frozen).
    pub fn open_lines(&mut self, width: usize) -> Vec<Line> {
        if self.pending.trim().is_empty() {
            return Vec::new();
        }
        let lines = if self.fence.is_some() {
            vec![code_line(plain_code(&self.pending))]
        } else {
            self.open_markdown(width)
        };
        self.with_blank(lines.into_iter().skip(self.frozen).collect())
    }

    /// The open unit's lines: an open paragraph extended by plain text is wrapped on
    /// from where it was (the same lines as parsing it whole: see
    /// [`extends_plainly`]); anything else is parsed again.
    fn open_markdown(&mut self, width: usize) -> Vec<Line> {
        let width = width.max(MIN_WIDTH);
        if let Some(open) = self.paragraph.as_mut()
            && open.width == width
            && extends_plainly(
                &self.pending[..open.source_len],
                &self.pending[open.source_len..],
            )
        {
            open.push_plain(&self.pending[open.source_len..]);
            return open.lines();
        }
        if let Some(open) = self.paragraph.as_mut()
            && open.width == width
            && open.reparse(&self.pending)
        {
            return open.lines();
        }
        let blocks = parse(&self.pending);
        if let [Block::Paragraph(spans)] = blocks.as_slice() {
            // One paragraph: its wrapped spans are its lines as laid out.
            let open = OpenParagraph::new(spans, &self.pending, Vec::new(), Vec::new(), width);
            let lines = open.lines();
            self.paragraph = Some(open);
            return lines;
        }
        let lines = self.layout(&blocks, width).0;
        self.paragraph = self.open_paragraph(&blocks, &lines, width);
        lines
    }

    /// The open unit as an [`OpenParagraph`] when it is one paragraph, or a list whose
    /// last item ends with one paragraph or with such a list (behind its markers: the
    /// prefix of the paragraph's first line), and wrapping that paragraph again gives
    /// the `lines` just laid out.
    fn open_paragraph(
        &self,
        blocks: &[Block],
        lines: &[Line],
        width: usize,
    ) -> Option<OpenParagraph> {
        let mut last = match blocks {
            [block] => block,
            _ => return None,
        };
        let mut depth = 0;
        let spans = loop {
            match last {
                Block::Paragraph(spans) => break spans,
                Block::List(_, items) => {
                    let item = items.last().filter(|item| item.task.is_none())?;
                    last = item.blocks.last()?;
                    depth += 1;
                }
                _ => return None,
            }
        };
        // The last line is the paragraph's: its prefix is as wide as the markers.
        let indents = lines.last()?.get(..depth)?.to_vec();
        let open = OpenParagraph::new(spans, &self.pending, indents, Vec::new(), width);
        let start = lines.len().checked_sub(open.wrapper.lines().len())?;
        let mut open = open;
        open.markers = lines[start].get(..depth)?.to_vec();
        open.before = lines[..start].to_vec();
        (open.own_lines(0) == lines[start..]).then_some(open)
    }

    /// Counts the first `lines` of [`Composer::open_lines`] as committed: they will not
    /// be drawn again.
    pub fn freeze(&mut self, mut lines: usize) {
        if self.blank && lines > 0 {
            self.blank = false;
            self.started = true;
            lines -= 1;
        }
        self.frozen += lines;
    }

    fn with_blank(&self, lines: Vec<Line>) -> Vec<Line> {
        if self.blank && !lines.is_empty() {
            std::iter::once(Vec::new()).chain(lines).collect()
        } else {
            lines
        }
    }

    fn commit(&mut self, unit: Unit, source: &str, width: usize, committed: &mut Vec<Line>) {
        self.paragraph = None;
        let lines = match unit {
            Unit::Blank => {
                self.blank = self.started;
                return;
            }
            Unit::FenceOpen => {
                let language = fence_language(source);
                if let Some(fence) = opening_fence(source) {
                    self.fence = Some((fence, self.highlighter.block(language)));
                }
                self.next_number = None;
                vec![code_open(language)]
            }
            Unit::CodeLine => {
                let text = source.trim_end_matches(['\n', '\r']);
                match self.fence.as_mut() {
                    Some((_, block)) => vec![code_line(block.line(text))],
                    None => vec![code_line(plain_code(text))],
                }
            }
            Unit::FenceClose => {
                self.fence = None;
                vec![code_close()]
            }
            Unit::Markdown => {
                let (lines, next) = self.markdown(source, width);
                self.next_number = next;
                lines
            }
        };
        // Lines frozen past this unit's were the next unit's first (an open list
        // committed item by item): they stay frozen.
        let skipped = self.frozen.min(lines.len());
        let lines: Vec<Line> = lines.into_iter().skip(skipped).collect();
        self.frozen -= skipped;
        committed.extend(self.with_blank(lines));
        self.blank = false;
        self.started = true;
    }

    /// A Markdown unit's lines, and the number an ordered item after it would get.
    fn markdown(&self, source: &str, width: usize) -> (Vec<Line>, Option<u64>) {
        self.layout(&parse(source), width)
    }

    /// Parsed blocks' lines, and the number an ordered item after them would get.
    fn layout(&self, blocks: &[Block], width: usize) -> (Vec<Line>, Option<u64>) {
        let (first, next) = match blocks {
            [Block::List(Some(start), items)] => {
                let first = self.next_number.unwrap_or(*start);
                (Some(first), Some(first + items.len() as u64))
            }
            _ => (None, None),
        };
        let layout = Layout {
            highlighter: &self.highlighter,
        };
        (layout.blocks(blocks, width, first), next)
    }
}

#[cfg(test)]
#[path = "compose_tests.rs"]
mod tests;
