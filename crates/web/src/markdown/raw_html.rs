//! Raw HTML in an answer, read as a browser's tokenizer reads tags: text, start tags
//! with their attributes, end tags and comments. The renderer writes each tag it keeps
//! again in one plain form (`<name a="v">`, see [`Piece::canonical`]), so the sanitizer
//! reads exactly the tags this module read — whatever is not a tag here reaches it as
//! text, never as markup.
//!
//! Reading is linear: each byte is looked at a bounded number of times. A tag cut off
//! by the end of the text makes the rest text (a browser drops such a tag and
//! everything after it).

use std::borrow::Cow;

/// The most attributes read of one tag; the rest are dropped (a browser's parser
/// compares each attribute with those before it, so a tag with a hundred thousand
/// attributes costs it their square).
pub(crate) const MAX_ATTRIBUTES: usize = 32;

/// One piece of raw HTML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// Text between tags, as written (its character references not decoded).
    Text(&'a str),
    /// A start tag: its name and attributes (names in lowercase, values as written,
    /// quotes taken off; a repeated attribute keeps its first value, as in a browser;
    /// at most [`MAX_ATTRIBUTES`]).
    Start {
        /// The element's name.
        name: String,
        /// Its attributes.
        attributes: Vec<(String, &'a str)>,
        /// The tag as written.
        source: &'a str,
    },
    /// An end tag (its attributes, which mean nothing, dropped).
    End {
        /// The element's name.
        name: String,
        /// The tag as written.
        source: &'a str,
    },
    /// A complete comment (`<!-- … -->`): dropped, as the sanitizer drops comments.
    Comment,
    /// A `<` that starts no tag read here (`<!DOCTYPE`, `<?`, `< 3`, an unterminated
    /// comment or tag): shown as text.
    Other(&'a str),
}

impl Piece<'_> {
    /// A start tag in the form the renderer writes: `<name a="v" b="w">`, each value in
    /// double quotes (a `"` in it as `&quot;`), attribute names limited to letters,
    /// digits, `-`, `_`, `:` and `.` (others dropped); `None` for other pieces.
    pub(crate) fn canonical(&self, keep: impl Fn(&str) -> bool) -> Option<String> {
        let Piece::Start {
            name, attributes, ..
        } = self
        else {
            return None;
        };
        let mut tag = format!("<{name}");
        for (attribute, value) in attributes {
            if is_attribute_name(attribute) && keep(value) {
                tag.push(' ');
                tag.push_str(attribute);
                tag.push_str("=\"");
                tag.push_str(&value.replace('"', "&quot;"));
                tag.push('"');
            }
        }
        tag.push('>');
        Some(tag)
    }
}

fn is_attribute_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
}

/// The pieces of `html`, in order.
pub(crate) fn pieces(html: &str) -> Vec<Piece<'_>> {
    let bytes = html.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(lt) = html[at..].find('<').map(|n| n + at) else {
            found.push(Piece::Text(&html[at..]));
            break;
        };
        if lt > at {
            found.push(Piece::Text(&html[at..lt]));
        }
        let rest = &html[lt..];
        let next = bytes.get(lt + 1).copied();
        let after = bytes.get(lt + 2).copied();
        if rest.starts_with("<!--") {
            // The first `-->` from the `--` on (`<!-->` and `<!--->` are empty comments).
            match rest[2..].find("-->") {
                Some(end) => {
                    found.push(Piece::Comment);
                    at = lt + 2 + end + 3;
                }
                None => {
                    found.push(Piece::Other(rest));
                    break;
                }
            }
        } else if next.is_some_and(|b| b.is_ascii_alphabetic())
            || (next == Some(b'/') && after.is_some_and(|b| b.is_ascii_alphabetic()))
        {
            let Some((piece, length)) = tag(rest) else {
                // Cut off by the end: the rest is text.
                found.push(Piece::Other(rest));
                break;
            };
            found.push(piece);
            at = lt + length;
        } else {
            found.push(Piece::Other("<"));
            at = lt + 1;
        }
    }
    found
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

/// The tag `text` starts with (`<name` or `</name`) and its length; `None` when it has
/// no `>` before the end.
fn tag(text: &str) -> Option<(Piece<'_>, usize)> {
    let bytes = text.as_bytes();
    let end_tag = bytes.get(1) == Some(&b'/');
    let name_start = if end_tag { 2 } else { 1 };
    let mut at = name_start;
    while at < bytes.len() && !is_space(bytes[at]) && !matches!(bytes[at], b'/' | b'>') {
        at += 1;
    }
    let name = text[name_start..at].to_ascii_lowercase();
    let mut attributes: Vec<(String, &str)> = Vec::new();
    loop {
        while at < bytes.len() && (is_space(bytes[at]) || bytes[at] == b'/') {
            at += 1;
        }
        match bytes.get(at) {
            None => return None,
            Some(b'>') => break,
            Some(_) => {}
        }
        // A name runs to a space, `/`, `>` or `=` (a `=` first is part of it).
        let name_start = at;
        at += 1;
        while at < bytes.len() && !is_space(bytes[at]) && !matches!(bytes[at], b'/' | b'>' | b'=') {
            at += 1;
        }
        let attribute = text[name_start..at].to_ascii_lowercase();
        let mut after_name = at;
        while after_name < bytes.len() && is_space(bytes[after_name]) {
            after_name += 1;
        }
        let mut value = "";
        if bytes.get(after_name) == Some(&b'=') {
            at = after_name + 1;
            while at < bytes.len() && is_space(bytes[at]) {
                at += 1;
            }
            match bytes.get(at) {
                None => return None,
                Some(&quote @ (b'"' | b'\'')) => {
                    let close = text[at + 1..].find(char::from(quote))? + at + 1;
                    value = &text[at + 1..close];
                    at = close + 1;
                }
                Some(b'>') => {}
                Some(_) => {
                    let start = at;
                    while at < bytes.len() && !is_space(bytes[at]) && bytes[at] != b'>' {
                        at += 1;
                    }
                    value = &text[start..at];
                }
            }
        }
        if attributes.len() < MAX_ATTRIBUTES
            && !attributes.iter().any(|(known, _)| *known == attribute)
        {
            attributes.push((attribute, value));
        }
    }
    let length = at + 1;
    let source = &text[..length];
    let piece = if end_tag {
        Piece::End { name, source }
    } else {
        Piece::Start {
            name,
            attributes,
            source,
        }
    };
    Some((piece, length))
}

/// `text` with `<` written as `&lt;`: raw text that can hold no tag, its character
/// references kept for the sanitizer's parser to read.
pub(crate) fn inert_text(text: &str) -> Cow<'_, str> {
    if text.contains('<') {
        Cow::Owned(text.replace('<', "&lt;"))
    } else {
        Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::{Piece, inert_text, pieces};

    fn start<'a>(name: &str, attributes: &[(&str, &'a str)], source: &'a str) -> Piece<'a> {
        Piece::Start {
            name: name.to_owned(),
            attributes: attributes
                .iter()
                .map(|(n, v)| ((*n).to_owned(), *v))
                .collect(),
            source,
        }
    }

    fn end<'a>(name: &str, source: &'a str) -> Piece<'a> {
        Piece::End {
            name: name.to_owned(),
            source,
        }
    }

    #[test]
    fn raw_html_is_read_as_a_browser_reads_its_tags() {
        let cases: Vec<(&str, Vec<Piece<'_>>)> = vec![
            ("plain", vec![Piece::Text("plain")]),
            (
                "a <b>bold</b> c",
                vec![
                    Piece::Text("a "),
                    start("b", &[], "<b>"),
                    Piece::Text("bold"),
                    end("b", "</b>"),
                    Piece::Text(" c"),
                ],
            ),
            (
                "<A HREF='x>y' Title=\"q\" href=z disabled>",
                vec![start(
                    "a",
                    &[("href", "x>y"), ("title", "q"), ("disabled", "")],
                    "<A HREF='x>y' Title=\"q\" href=z disabled>",
                )],
            ),
            (
                "<img src = x / >",
                vec![start("img", &[("src", "x")], "<img src = x / >")],
            ),
            ("<br/>", vec![start("br", &[], "<br/>")]),
            (
                "</div class=\">\">x",
                vec![end("div", "</div class=\">\">"), Piece::Text("x")],
            ),
            (
                "a<!-- <b> -->b",
                vec![Piece::Text("a"), Piece::Comment, Piece::Text("b")],
            ),
            ("<!-->x", vec![Piece::Comment, Piece::Text("x")]),
            ("<!-- open <b>", vec![Piece::Other("<!-- open <b>")]),
            (
                "<!DOCTYPE html>",
                vec![Piece::Other("<"), Piece::Text("!DOCTYPE html>")],
            ),
            (
                "2 < 3 <= 4 </ 5",
                vec![
                    Piece::Text("2 "),
                    Piece::Other("<"),
                    Piece::Text(" 3 "),
                    Piece::Other("<"),
                    Piece::Text("= 4 "),
                    Piece::Other("<"),
                    Piece::Text("/ 5"),
                ],
            ),
            (
                "x <a title=\"never closed <b>bold</b>",
                vec![
                    Piece::Text("x "),
                    Piece::Other("<a title=\"never closed <b>bold</b>"),
                ],
            ),
            ("<div", vec![Piece::Other("<div")]),
            ("<=x>", vec![Piece::Other("<"), Piece::Text("=x>")]),
        ];
        for (html, expected) in cases {
            assert_eq!(pieces(html), expected, "{html:?}");
        }
    }

    #[test]
    fn a_kept_tag_is_written_in_one_plain_form() {
        let cases = [
            (
                "<A HREF='say \"hi\"' onclick=x>",
                "<a href=\"say &quot;hi&quot;\" onclick=\"x\">",
            ),
            (
                "<img src=x alt=\"a&amp;b\" />",
                "<img src=\"x\" alt=\"a&amp;b\">",
            ),
            ("<p <x=1 a.b=2 \"q=3>", "<p a.b=\"2\">"),
            ("<span title=long>", "<span>"),
        ];
        for (html, written) in cases {
            let piece = pieces(html).remove(0);
            assert_eq!(
                piece.canonical(|value| value != "long").as_deref(),
                Some(written),
                "{html:?}"
            );
        }
        assert_eq!(pieces("</b>")[0].canonical(|_| true), None);
        assert_eq!(inert_text("a < b &amp; c"), "a &lt; b &amp; c");
    }
}
