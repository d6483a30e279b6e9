//! Blocks laid out as lines of a given width: headings styled by level, lists with
//! their numbers or bullets (nested ones indented under their item), quotes behind a
//! bar, tables, rules, and code blocks in a frame with their language and colours.

use unicode_width::UnicodeWidthStr;

use crate::highlight::Highlighter;
use crate::style::{Colour, Line, Look, Span};
use crate::tree::{Block, Item};
use crate::wrap::wrap;

/// Bullets of unordered lists by depth.
const BULLETS: [&str; 3] = ["•", "◦", "▪"];
/// The narrowest text column a nested block gets.
pub(crate) const MIN_WIDTH: usize = 10;

/// Lays out blocks with one highlighter (code blocks).
#[derive(Debug, Clone, Copy)]
pub struct Layout<'h> {
    /// Highlights code blocks.
    pub highlighter: &'h Highlighter,
}

impl Layout<'_> {
    /// The lines of `blocks` in `width` columns; a top-level ordered list numbered from
    /// `first_number` when given (a list streamed item by item keeps counting).
    pub fn blocks(&self, blocks: &[Block], width: usize, first_number: Option<u64>) -> Vec<Line> {
        self.nested(blocks, width, 0, false, first_number)
    }

    fn nested(
        &self,
        blocks: &[Block],
        width: usize,
        depth: usize,
        tight: bool,
        first_number: Option<u64>,
    ) -> Vec<Line> {
        let width = width.max(MIN_WIDTH);
        let mut lines = Vec::new();
        for (n, block) in blocks.iter().enumerate() {
            if n > 0 && !tight {
                lines.push(Vec::new());
            }
            match block {
                Block::Paragraph(spans) => lines.extend(wrap(spans, width)),
                Block::Heading(level, spans) => lines.extend(heading(*level, spans, width)),
                Block::Code(language, text) => {
                    let mut code = self.highlighter.block(language);
                    lines.push(code_open(language));
                    for line in text.lines() {
                        lines.push(code_line(code.line(line)));
                    }
                    lines.push(code_close());
                }
                Block::List(start, items) => {
                    let start = start.map(|s| first_number.unwrap_or(s));
                    lines.extend(self.list(start, items, width, depth));
                }
                Block::Quote(inner) => {
                    let inner = self.nested(inner, width - 2, depth, false, None);
                    if inner.is_empty() {
                        lines.push(vec![Span::new("│", Look::DIM)]);
                    }
                    lines.extend(prefixed(inner, Span::new("│ ", Look::DIM), None));
                }
                Block::Table(table) => lines.extend(table.render(width)),
                Block::Rule => lines.push(vec![Span::new("─".repeat(width), Look::DIM)]),
            }
        }
        lines
    }

    fn list(&self, start: Option<u64>, items: &[Item], width: usize, depth: usize) -> Vec<Line> {
        let mut lines = Vec::new();
        for (n, item) in items.iter().enumerate() {
            let mut marker = match start {
                Some(first) => format!("{}. ", first + n as u64),
                None => format!("{} ", BULLETS[depth % BULLETS.len()]),
            };
            match item.task {
                Some(true) => marker.push_str("☑ "),
                Some(false) => marker.push_str("☐ "),
                None => {}
            }
            let indent = marker.width();
            let inner = self.nested(
                &item.blocks,
                width - indent.min(width),
                depth + 1,
                true,
                None,
            );
            let look = Look {
                fg: Some(Colour::Basic(6)),
                ..Look::PLAIN
            };
            let first = Span::new(marker, look);
            let rest = Span::plain(" ".repeat(indent));
            if inner.is_empty() {
                lines.push(vec![first]);
            } else {
                lines.extend(prefixed(inner, first, Some(rest)));
            }
        }
        lines
    }
}

/// `lines` behind `first` (the first line) and `rest` (the others; `first` again when
/// `None`). Empty lines get no trailing spaces.
pub(crate) fn prefixed(lines: Vec<Line>, first: Span, rest: Option<Span>) -> Vec<Line> {
    lines
        .into_iter()
        .enumerate()
        .map(|(n, line)| {
            let mut prefix = if n == 0 {
                first.clone()
            } else {
                rest.clone().unwrap_or_else(|| first.clone())
            };
            if line.is_empty() {
                prefix.text = prefix.text.trim_end().to_owned();
            }
            let mut out = vec![prefix];
            out.extend(line);
            out
        })
        .collect()
}

/// A heading's lines: level 1 bold, underlined and coloured, 2 bold and coloured, 3
/// bold, deeper ones bold italic.
fn heading(level: u8, spans: &[Span], width: usize) -> Vec<Line> {
    let styled: Vec<Span> = spans
        .iter()
        .map(|s| {
            let mut look = s.look;
            look.bold = true;
            match level {
                1 => {
                    look.underline = true;
                    look.fg = Some(Colour::Basic(5));
                }
                2 => look.fg = Some(Colour::Basic(6)),
                3 => {}
                _ => look.italic = true,
            }
            Span::new(s.text.clone(), look)
        })
        .collect();
    wrap(&styled, width)
}

/// The first line of a code block's frame: its language.
pub fn code_open(language: &str) -> Line {
    let mut line = vec![Span::new("╭─", Look::DIM)];
    if !language.is_empty() {
        let label = smallebot_terminal_text::escape_controls(language);
        line.push(Span::new(
            format!(" {label}"),
            Look {
                bold: true,
                ..Look::DIM
            },
        ));
    }
    line
}

/// A code line in the frame.
pub fn code_line(code: Line) -> Line {
    let mut line = vec![Span::new("│ ", Look::DIM)];
    line.extend(code);
    line
}

/// The last line of a code block's frame.
pub fn code_close() -> Line {
    vec![Span::new("╰─", Look::DIM)]
}
