//! One Markdown unit parsed (pulldown-cmark) into blocks of styled spans: what the
//! layout needs and nothing else. Raw HTML stays text; every text is escaped.

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use smallebot_terminal_text::escape_controls;

use crate::style::{Colour, Line, Look, Span, push_text};
use crate::table::Table;
use crate::wrap::Align;

/// A block of a Markdown unit.
#[derive(Debug, Clone)]
pub enum Block {
    /// A paragraph (also a tight list item's text).
    Paragraph(Line),
    /// A heading and its level (1–6).
    Heading(u8, Line),
    /// A code block: its language (the info string's first word) and text.
    Code(String, String),
    /// A list: the first number (ordered) and the items, each a list of blocks with
    /// its task mark (`[x]`, `[ ]`), if any.
    List(Option<u64>, Vec<Item>),
    /// A block quote.
    Quote(Vec<Block>),
    /// A table.
    Table(Table),
    /// A thematic break.
    Rule,
}

/// A list item.
#[derive(Debug, Clone, Default)]
pub struct Item {
    /// `Some(done)` for a task list item.
    pub task: Option<bool>,
    /// Its blocks.
    pub blocks: Vec<Block>,
}

enum Frame {
    Blocks(Vec<Block>),
    Quote(Vec<Block>),
    List(Option<u64>, Vec<Item>),
    Item(Item),
    Table(Table),
    Code(String, String),
}

impl Frame {
    fn blocks(&mut self) -> Option<&mut Vec<Block>> {
        match self {
            Self::Blocks(blocks) | Self::Quote(blocks) => Some(blocks),
            Self::Item(item) => Some(&mut item.blocks),
            _ => None,
        }
    }
}

/// Parses one unit of Markdown.
pub fn parse(source: &str) -> Vec<Block> {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut builder = Builder {
        stack: vec![Frame::Blocks(Vec::new())],
        inline: Vec::new(),
        looks: Vec::new(),
        links: Vec::new(),
        row: Vec::new(),
    };
    for event in Parser::new_ext(source, options) {
        builder.event(event);
    }
    builder.flush();
    while builder.stack.len() > 1 {
        builder.close();
    }
    match builder.stack.pop() {
        Some(Frame::Blocks(blocks)) => blocks,
        _ => Vec::new(),
    }
}

struct Builder {
    stack: Vec<Frame>,
    /// The inline text being read.
    inline: Line,
    /// Emphasis, strong, strikethrough and links open around the text.
    looks: Vec<Look>,
    /// Targets of the links (and images) open.
    links: Vec<String>,
    /// The cells of the table row being read.
    row: Vec<Line>,
}

impl Builder {
    fn look(&self) -> Look {
        self.looks.iter().fold(Look::PLAIN, |acc, l| Look {
            bold: acc.bold || l.bold,
            italic: acc.italic || l.italic,
            underline: acc.underline || l.underline,
            strike: acc.strike || l.strike,
            dim: acc.dim || l.dim,
            fg: l.fg.or(acc.fg),
        })
    }

    fn text(&mut self, text: &str, look: Look) {
        let text = escape_controls(text);
        push_text(&mut self.inline, &text, look);
    }

    /// Puts loose inline text (a tight list item's) in a paragraph of its container.
    fn flush(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let line = std::mem::take(&mut self.inline);
        if let Some(blocks) = self.stack.last_mut().and_then(Frame::blocks) {
            blocks.push(Block::Paragraph(line));
        }
    }

    fn push_block(&mut self, block: Block) {
        if let Some(blocks) = self.stack.last_mut().and_then(Frame::blocks) {
            blocks.push(block);
        }
    }

    /// Ends the innermost container and adds it to its parent.
    fn close(&mut self) {
        self.flush();
        let Some(frame) = self.stack.pop() else {
            return;
        };
        match frame {
            Frame::Quote(blocks) => self.push_block(Block::Quote(blocks)),
            Frame::List(start, items) => self.push_block(Block::List(start, items)),
            Frame::Item(item) => {
                if let Some(Frame::List(_, items)) = self.stack.last_mut() {
                    items.push(item);
                }
            }
            Frame::Table(table) => self.push_block(Block::Table(table)),
            Frame::Code(language, text) => self.push_block(Block::Code(language, text)),
            Frame::Blocks(blocks) => {
                for block in blocks {
                    self.push_block(block);
                }
            }
        }
    }

    fn event(&mut self, event: Event<'_>) {
        if let Some(Frame::Code(_, text)) = self.stack.last_mut() {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::CodeBlock) => self.close(),
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t, self.look()),
            Event::Code(t) => {
                let look = Look {
                    fg: Some(Colour::Basic(3)),
                    ..self.look()
                };
                self.text(&t, look);
            }
            Event::Html(t)
            | Event::InlineHtml(t)
            | Event::InlineMath(t)
            | Event::DisplayMath(t) => {
                self.text(&t, self.look());
            }
            Event::SoftBreak => self.text(" ", self.look()),
            Event::HardBreak => self.text("\n", self.look()),
            Event::Rule => {
                self.flush();
                self.push_block(Block::Rule);
            }
            Event::TaskListMarker(done) => {
                if let Some(Frame::Item(item)) = self.stack.last_mut() {
                    item.task = Some(done);
                }
            }
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]"), self.look()),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::Heading { .. } | Tag::HtmlBlock => self.flush(),
            Tag::BlockQuote(_) => {
                self.flush();
                self.stack.push(Frame::Quote(Vec::new()));
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_owned()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                self.stack.push(Frame::Code(language, String::new()));
            }
            Tag::List(start) => {
                self.flush();
                self.stack.push(Frame::List(start, Vec::new()));
            }
            Tag::Item => self.stack.push(Frame::Item(Item::default())),
            Tag::Table(aligns) => {
                self.flush();
                let aligns = aligns
                    .iter()
                    .map(|a| match a {
                        Alignment::Center => Align::Center,
                        Alignment::Right => Align::Right,
                        Alignment::Left | Alignment::None => Align::Left,
                    })
                    .collect();
                self.stack.push(Frame::Table(Table {
                    aligns,
                    ..Table::default()
                }));
            }
            Tag::TableHead | Tag::TableRow => self.row.clear(),
            Tag::TableCell => self.inline.clear(),
            Tag::Emphasis => self.looks.push(Look {
                italic: true,
                ..Look::PLAIN
            }),
            Tag::Strong => self.looks.push(Look {
                bold: true,
                ..Look::PLAIN
            }),
            Tag::Strikethrough => self.looks.push(Look {
                strike: true,
                ..Look::PLAIN
            }),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.looks.push(Look {
                    underline: true,
                    fg: Some(Colour::Basic(4)),
                    ..Look::PLAIN
                });
            }
            _ => self.looks.push(Look::PLAIN),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.flush(),
            TagEnd::Heading(level) => {
                let line = std::mem::take(&mut self.inline);
                self.push_block(Block::Heading(heading_level(level), line));
            }
            TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item | TagEnd::Table => self.close(),
            TagEnd::CodeBlock => {}
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                self.row.push(cell);
            }
            TagEnd::TableHead => {
                let row = std::mem::take(&mut self.row);
                if let Some(Frame::Table(table)) = self.stack.last_mut() {
                    table.head = row;
                }
            }
            TagEnd::TableRow => {
                let row = std::mem::take(&mut self.row);
                if let Some(Frame::Table(table)) = self.stack.last_mut() {
                    table.rows.push(row);
                }
            }
            TagEnd::Link | TagEnd::Image => {
                self.looks.pop();
                let url = self.links.pop().unwrap_or_default();
                let shown: String = self.inline.iter().map(|s| s.text.as_str()).collect();
                if !url.is_empty() && !shown.ends_with(url.as_str()) {
                    let target = format!(" ({})", escape_controls(&url));
                    self.inline.push(Span::new(target, Look::DIM));
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.looks.pop();
            }
            TagEnd::Superscript | TagEnd::Subscript => {
                self.looks.pop();
            }
            _ => {}
        }
    }
}

fn heading_level(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}
