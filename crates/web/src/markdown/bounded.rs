//! pulldown-cmark's events made safe to hand to the sanitizer in linear time (see
//! [`super::limits`] for why): elements nested at most [`MAX_DEPTH`] deep, raw HTML
//! balanced and written again in one plain form, long runs of escaped characters
//! split.
//!
//! - A Markdown element that would nest deeper than the cap is dropped with everything
//!   nested in it, its text kept (a line break where a block ended).
//! - Raw HTML (a block or inline) is read by [`super::raw_html`]: a comment is dropped;
//!   a tag of an element the page keeps ([`super::elements`]) is written again in its
//!   plain form; any other tag, a tag past the cap and every `<` that starts no tag is
//!   text. An end tag closes the innermost raw element of that name opened in the same
//!   Markdown element, and those opened after it; an end tag that closes nothing is
//!   dropped. What a Markdown element leaves open is closed before it ends (what an
//!   HTML block opens stays open for the blocks after it, as `<details>` around a
//!   list does, until the quote, list item or answer around them ends). So every
//!   element written is closed by a tag written, in order: the sanitizer's parser
//!   never holds more than the cap open, whatever the input asks for.

use pulldown_cmark::{CowStr, Event, Tag, TagEnd};

use super::elements::{is_void, kept};
use super::limits::{MAX_DEPTH, MAX_SPECIALS, specials};
use super::raw_html::{Piece, inert_text, pieces};

/// Rendering stopped: the request it was for went away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cancelled;

/// How many events are handled between two looks at whether to stop.
const EVENTS_PER_CHECK: usize = 4096;

/// `events` bounded as the module says; [`Cancelled`] as soon as `cancelled` says so.
pub(crate) fn bounded<'a>(
    events: impl Iterator<Item = Event<'a>>,
    cancelled: &dyn Fn() -> bool,
) -> Result<Vec<Event<'a>>, Cancelled> {
    let mut writer = Writer::default();
    for (n, event) in events.enumerate() {
        if n % EVENTS_PER_CHECK == 0 && cancelled() {
            return Err(Cancelled);
        }
        writer.event(event);
    }
    Ok(writer.finish())
}

/// A Markdown element written and open: how deep it counts and the raw elements
/// opened inside it and still open.
#[derive(Default)]
struct Level {
    weight: usize,
    raw: Vec<&'static str>,
}

/// An image read until its end, to decide whether it is kept: the writer puts what is
/// nested in it into its `alt` attribute.
struct PendingImage<'a> {
    start: Tag<'a>,
    events: Vec<Event<'a>>,
    nested: usize,
    specials: usize,
}

struct Writer<'a> {
    out: Vec<Event<'a>>,
    /// How deep the open elements written are nested.
    depth: usize,
    /// The Markdown elements open, the answer itself first.
    levels: Vec<Level>,
    /// Inside a Markdown element dropped past the cap: how many of its elements are open.
    flattened: usize,
    /// The HTML block being read.
    html_block: Option<String>,
    /// The escaped characters in the text written since the last tag.
    specials: usize,
    image: Option<PendingImage<'a>>,
}

impl Default for Writer<'_> {
    fn default() -> Self {
        Self {
            out: Vec::new(),
            depth: 0,
            levels: vec![Level::default()],
            flattened: 0,
            html_block: None,
            specials: 0,
            image: None,
        }
    }
}

/// How many elements a Markdown element opens around what it holds.
fn weight(tag: &Tag<'_>) -> usize {
    match tag {
        // `<table>`, `<thead>`/`<tbody>`, `<tr>`, `<th>`/`<td>`: counted at the table.
        Tag::Table(_) => 4,
        Tag::TableHead | Tag::TableRow | Tag::TableCell | Tag::Item | Tag::HtmlBlock => 0,
        // `<ul>`/`<ol>` and `<li>`; `<pre>` and `<code>`.
        Tag::List(_) | Tag::CodeBlock(_) => 2,
        _ => 1,
    }
}

fn ends_block(tag: TagEnd) -> bool {
    !matches!(
        tag,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Link
            | TagEnd::Image
            | TagEnd::Superscript
            | TagEnd::Subscript
    )
}

impl<'a> Writer<'a> {
    fn event(&mut self, event: Event<'a>) {
        if self.image.is_some() {
            self.image_event(event);
            return;
        }
        match event {
            Event::Start(Tag::HtmlBlock) if self.flattened == 0 => {
                self.html_block = Some(String::new());
            }
            Event::End(TagEnd::HtmlBlock) if self.flattened == 0 => {
                let html = self.html_block.take().unwrap_or_default();
                self.raw(&html);
            }
            Event::Start(Tag::Image {
                link_type,
                dest_url,
                title,
                id,
            }) if self.flattened == 0 => {
                let specials = specials(&dest_url) + specials(&title);
                self.image = Some(PendingImage {
                    start: Tag::Image {
                        link_type,
                        dest_url,
                        title,
                        id,
                    },
                    events: Vec::new(),
                    nested: 0,
                    specials,
                });
            }
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(text),
            Event::Code(code) => {
                if self.flattened > 0 || self.depth + 1 > MAX_DEPTH {
                    self.text(code);
                } else {
                    self.tag(CowStr::Borrowed("<code>"));
                    self.text(code);
                    self.tag(CowStr::Borrowed("</code>"));
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                if self.flattened > 0 {
                    self.text(html);
                } else if let Some(block) = self.html_block.as_mut() {
                    block.push_str(&html);
                } else {
                    self.raw(&html);
                }
            }
            Event::TaskListMarker(done) if self.flattened > 0 => {
                self.text(CowStr::Borrowed(if done { "[x] " } else { "[ ] " }));
            }
            Event::SoftBreak => self.out.push(Event::SoftBreak),
            other => {
                self.specials = 0;
                self.out.push(other);
            }
        }
    }

    fn start(&mut self, tag: Tag<'a>) {
        if self.flattened > 0 {
            self.flattened += 1;
            return;
        }
        let weight = weight(&tag);
        let link_too_long = matches!(&tag, Tag::Link { dest_url, title, .. }
            if specials(dest_url) + specials(title) > MAX_SPECIALS);
        if self.depth + weight > MAX_DEPTH || link_too_long {
            self.flattened = 1;
            return;
        }
        self.depth += weight;
        self.levels.push(Level {
            weight,
            raw: Vec::new(),
        });
        self.specials = 0;
        self.out.push(Event::Start(tag));
    }

    fn end(&mut self, tag: TagEnd) {
        if self.flattened > 0 {
            self.flattened -= 1;
            if ends_block(tag) {
                self.out.push(Event::SoftBreak);
            }
            return;
        }
        if self.levels.len() > 1 {
            let level = self.levels.pop().unwrap_or_default();
            self.close_raw(&level.raw);
            self.depth -= level.weight;
        }
        self.specials = 0;
        self.out.push(Event::End(tag));
    }

    fn image_event(&mut self, event: Event<'a>) {
        let Some(image) = self.image.as_mut() else {
            return;
        };
        match &event {
            Event::Start(_) => image.nested += 1,
            Event::End(_) if image.nested == 0 => {
                if let Some(image) = self.image.take() {
                    self.write_image(image);
                }
                return;
            }
            Event::End(_) => image.nested -= 1,
            Event::Text(text) | Event::Code(text) | Event::InlineHtml(text) => {
                image.specials += specials(text);
            }
            _ => {}
        }
        image.events.push(event);
    }

    /// An image whose source, title and text are short enough, as it came; else its
    /// text.
    fn write_image(&mut self, image: PendingImage<'a>) {
        if image.specials <= MAX_SPECIALS && self.depth < MAX_DEPTH {
            self.specials = 0;
            self.out.push(Event::Start(image.start));
            self.out.extend(image.events);
            self.out.push(Event::End(TagEnd::Image));
            return;
        }
        for event in image.events {
            match event {
                Event::Text(text) | Event::Code(text) | Event::InlineHtml(text) => {
                    self.text(text);
                }
                Event::SoftBreak | Event::HardBreak => self.out.push(Event::SoftBreak),
                _ => {}
            }
        }
    }

    /// Raw HTML, read into pieces and written as the module says.
    fn raw(&mut self, html: &str) {
        for piece in pieces(html) {
            match piece {
                Piece::Text(text) => self.raw_text(text),
                Piece::Comment => {}
                Piece::Other(text) => self.text(CowStr::from(text.to_owned())),
                Piece::Start { ref name, .. } => {
                    let element = kept(name);
                    let written = piece.canonical(|value| specials(value) <= MAX_SPECIALS);
                    match (element, written) {
                        (Some(name), Some(tag)) if is_void(name) => {
                            self.tag(CowStr::from(tag));
                        }
                        (Some(name), Some(tag)) if self.depth < MAX_DEPTH => {
                            self.tag(CowStr::from(tag));
                            self.depth += 1;
                            if let Some(level) = self.levels.last_mut() {
                                level.raw.push(name);
                            }
                        }
                        _ => self.shown_as_text(&piece),
                    }
                }
                Piece::End { ref name, .. } => {
                    let open = self
                        .levels
                        .last()
                        .and_then(|level| level.raw.iter().rposition(|open| open == name));
                    match open {
                        Some(at) => {
                            let closed = self
                                .levels
                                .last_mut()
                                .map(|level| level.raw.split_off(at))
                                .unwrap_or_default();
                            self.close_raw(&closed);
                        }
                        // Closes nothing: dropped (a tag shown as text shows its end too).
                        None if kept(name).is_some() => {}
                        None => self.shown_as_text(&piece),
                    }
                }
            }
        }
    }

    fn shown_as_text(&mut self, piece: &Piece<'_>) {
        if let Piece::Start { source, .. } | Piece::End { source, .. } = piece {
            self.text(CowStr::from((*source).to_owned()));
        }
    }

    /// Closes the raw elements `open` (outermost first), innermost first.
    fn close_raw(&mut self, open: &[&'static str]) {
        for name in open.iter().rev() {
            self.tag(CowStr::from(format!("</{name}>")));
            self.depth -= 1;
        }
    }

    /// A tag written as it is.
    fn tag(&mut self, tag: CowStr<'a>) {
        self.specials = 0;
        self.out.push(Event::InlineHtml(tag));
    }

    /// Text, escaped by the HTML writer; split by an empty comment (which the
    /// sanitizer drops) before it holds more than [`MAX_SPECIALS`] escaped characters.
    fn text(&mut self, text: CowStr<'a>) {
        for part in self.split(&text) {
            match part {
                Part::Whole => {
                    self.out.push(Event::Text(text));
                    return;
                }
                Part::Text(part) => self.out.push(Event::Text(CowStr::from(part))),
                Part::Split => self
                    .out
                    .push(Event::InlineHtml(CowStr::Borrowed("<!---->"))),
            }
        }
    }

    /// Raw HTML's text: written as it is (its character references read by the
    /// sanitizer's parser), each `<` as `&lt;`; split like [`Writer::text`].
    fn raw_text(&mut self, text: &str) {
        for part in self.split(text) {
            match part {
                Part::Whole => {
                    let inert = inert_text(text).into_owned();
                    self.out.push(Event::InlineHtml(CowStr::from(inert)));
                    return;
                }
                Part::Text(part) => {
                    let inert = inert_text(&part).into_owned();
                    self.out.push(Event::InlineHtml(CowStr::from(inert)));
                }
                Part::Split => self
                    .out
                    .push(Event::InlineHtml(CowStr::Borrowed("<!---->"))),
            }
        }
    }

    /// `text` in parts each adding at most [`MAX_SPECIALS`] escaped characters to the
    /// text written since the last tag: [`Part::Whole`] when it needs no split.
    fn split(&mut self, text: &str) -> Vec<Part> {
        let count = specials(text);
        if self.specials + count <= MAX_SPECIALS {
            self.specials += count;
            return vec![Part::Whole];
        }
        let mut parts = Vec::new();
        let mut start = 0;
        for (at, byte) in text.bytes().enumerate() {
            if !matches!(byte, b'&' | 0xC2) {
                continue;
            }
            if self.specials == MAX_SPECIALS {
                // `&` and `0xC2` both start a character: a boundary.
                parts.push(Part::Text(text[start..at].to_owned()));
                parts.push(Part::Split);
                start = at;
                self.specials = 0;
            }
            self.specials += 1;
        }
        parts.push(Part::Text(text[start..].to_owned()));
        parts
    }

    fn finish(mut self) -> Vec<Event<'a>> {
        if let Some(image) = self.image.take() {
            self.write_image(image);
        }
        if let Some(html) = self.html_block.take() {
            self.raw(&html);
        }
        while let Some(level) = self.levels.pop() {
            self.close_raw(&level.raw);
        }
        self.out
    }
}

enum Part {
    Whole,
    Text(String),
    Split,
}

#[cfg(test)]
#[path = "bounded_tests.rs"]
mod tests;
