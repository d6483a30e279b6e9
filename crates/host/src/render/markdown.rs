//! Answers rendered as Markdown on a terminal, line by line as they stream: headings
//! bold, emphasis, inline code and code blocks coloured, list bullets, quotes marked.
//! Inline Markdown is parsed with pulldown-cmark; the block structure that matters
//! for a stream (a fenced code block spans lines) is followed line by line. Every piece
//! of text is printed through `escape_controls`.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use smallebot_core::rules::terminal_text::escape_controls;

use super::Style;

/// Renders streamed Markdown: complete lines are rendered as they arrive; the open
/// line waits for its end (or for [`MarkdownLines::finish`]).
#[derive(Debug, Default)]
pub struct MarkdownLines {
    pending: String,
    in_fence: bool,
}

impl MarkdownLines {
    /// Adds streamed text; returns what can be printed now.
    pub fn push(&mut self, text: &str, style: Style) -> String {
        self.pending.push_str(text);
        let Some(end) = self.pending.rfind('\n') else {
            return String::new();
        };
        let complete: String = self.pending.drain(..=end).collect();
        let mut out = String::new();
        for line in complete.split_inclusive('\n') {
            out.push_str(&self.render_line(line.trim_end_matches('\n'), style));
            out.push('\n');
        }
        out
    }

    /// Renders the open line, if any (the answer ended or a tool call starts).
    pub fn finish(&mut self, style: Style) -> String {
        let rest = std::mem::take(&mut self.pending);
        self.in_fence = false;
        if rest.is_empty() {
            String::new()
        } else {
            self.render_line(&rest, style)
        }
    }

    /// Whether text waits for the end of its line.
    pub fn has_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    fn render_line(&mut self, line: &str, style: Style) -> String {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            self.in_fence = !self.in_fence;
            return style.dim(&escape_controls(line));
        }
        if self.in_fence {
            return style.yellow(&escape_controls(line));
        }
        let indent = &line[..line.len() - trimmed.len()];
        if let Some(heading) = heading_text(trimmed) {
            return style.bold(&inline(heading, style));
        }
        if let Some(rest) = trimmed
            .strip_prefix("> ")
            .or_else(|| trimmed.strip_prefix('>'))
        {
            return format!("{}{}", style.dim("│ "), inline(rest, style));
        }
        for bullet in ["- ", "* ", "+ "] {
            if let Some(rest) = trimmed.strip_prefix(bullet) {
                return format!("{indent}• {}", inline(rest, style));
            }
        }
        format!("{indent}{}", inline(trimmed, style))
    }
}

/// The text of an ATX heading (`# Title` … `###### Title`).
fn heading_text(line: &str) -> Option<&str> {
    let level = line.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    line[level..].strip_prefix(' ').map(str::trim)
}

/// One line's inline Markdown: emphasis, strong, code, links.
fn inline(text: &str, style: Style) -> String {
    let mut out = String::new();
    let (mut strong, mut emphasis) = (0, 0);
    let mut link: Option<String> = None;
    for event in Parser::new_ext(text, Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Text(t) => {
                let t = escape_controls(&t).into_owned();
                out.push_str(&match (strong > 0, emphasis > 0) {
                    (true, _) => style.bold(&t),
                    (false, true) => style.italic(&t),
                    _ => t,
                });
            }
            Event::Code(code) => out.push_str(&style.yellow(&escape_controls(&code))),
            Event::Start(Tag::Strong) => strong += 1,
            Event::End(TagEnd::Strong) => strong -= 1,
            Event::Start(Tag::Emphasis) => emphasis += 1,
            Event::End(TagEnd::Emphasis) => emphasis -= 1,
            Event::Start(Tag::Link { dest_url, .. }) => link = Some(dest_url.to_string()),
            Event::End(TagEnd::Link) => {
                if let Some(url) = link.take() {
                    out.push_str(&style.dim(&format!(" ({})", escape_controls(&url))));
                }
            }
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            // Raw HTML and the rest: shown as written, never interpreted.
            Event::Html(raw) | Event::InlineHtml(raw) => out.push_str(&escape_controls(&raw)),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const ON: Style = Style { ansi: true };

    fn rendered(chunks: &[&str]) -> String {
        let mut lines = MarkdownLines::default();
        let mut out: String = chunks.iter().map(|c| lines.push(c, ON)).collect();
        out.push_str(&lines.finish(ON));
        out
    }

    #[test]
    fn markdown_renders_line_by_line_whatever_the_chunks() {
        let cases: &[(&[&str], &str)] = &[
            (&["# Title\n"], "\x1b[1mTitle\x1b[0m\n"),
            (
                &["some **bo", "ld** and *it*\n"],
                "some \x1b[1mbold\x1b[0m and \x1b[3mit\x1b[0m\n",
            ),
            (&["use `ls -l`\n"], "use \x1b[33mls -l\x1b[0m\n"),
            (&["- one\n  * two\n"], "• one\n  • two\n"),
            (&["> quoted\n"], "\x1b[2m│ \x1b[0mquoted\n"),
            (
                &["```sh\n# not a heading\n```\n"],
                "\x1b[2m```sh\x1b[0m\n\x1b[33m# not a heading\x1b[0m\n\x1b[2m```\x1b[0m\n",
            ),
            (
                &["[docs](https://x.y)\n"],
                "docs\x1b[2m (https://x.y)\x1b[0m\n",
            ),
            (&["no newline at the end"], "no newline at the end"),
            (
                &["<script>alert(1)</script>\n"],
                "<script>alert(1)</script>\n",
            ),
            (&["esc \x1b[2J here\n"], "esc ^[[2J here\n"),
        ];
        for (chunks, expected) in cases {
            assert_eq!(rendered(chunks), *expected, "{chunks:?}");
        }
    }

    #[test]
    fn nothing_is_printed_before_a_line_ends() {
        let mut lines = MarkdownLines::default();
        assert_eq!(lines.push("partial", ON), "");
        assert!(lines.has_pending());
        assert_eq!(lines.push(" line\nnext", ON), "partial line\n");
        assert_eq!(lines.finish(ON), "next");
        assert!(!lines.has_pending());
    }
}
