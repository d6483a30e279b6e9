//! The answer composed unit by unit: finished units become committed lines (never
//! changed after), the open unit's lines are recomputed at each call. No escapes for
//! the cursor here: [`crate::LiveMarkdown`] draws what this composes.

use crate::highlight::{CodeBlock, Highlighter, plain_code};
use crate::layout::{Layout, code_close, code_line, code_open};
use crate::split::{Fence, Unit, fence_language, next_unit, opening_fence};
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
            let source: String = self.pending.drain(..len).collect();
            self.commit(unit, &source, width, committed);
        }
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
    pub fn open_lines(&self, width: usize) -> Vec<Line> {
        if self.pending.trim().is_empty() {
            return Vec::new();
        }
        let lines = if self.fence.is_some() {
            vec![code_line(plain_code(&self.pending))]
        } else {
            self.markdown(&self.pending, width).0
        };
        self.with_blank(lines.into_iter().skip(self.frozen).collect())
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
        let lines: Vec<Line> = lines.into_iter().skip(self.frozen).collect();
        self.frozen = 0;
        committed.extend(self.with_blank(lines));
        self.blank = false;
        self.started = true;
    }

    /// A Markdown unit's lines, and the number an ordered item after it would get.
    fn markdown(&self, source: &str, width: usize) -> (Vec<Line>, Option<u64>) {
        let blocks = parse(source);
        let (first, next) = match blocks.as_slice() {
            [Block::List(Some(start), items)] => {
                let first = self.next_number.unwrap_or(*start);
                (Some(first), Some(first + items.len() as u64))
            }
            _ => (None, None),
        };
        let layout = Layout {
            highlighter: &self.highlighter,
        };
        (layout.blocks(&blocks, width, first), next)
    }
}
