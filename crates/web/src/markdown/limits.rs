//! The bounds that keep rendering an answer linear in its size, whatever it holds.
//!
//! The sanitizer's HTML parser (html5ever, under ammonia) does work proportional to
//! how deep the open elements are for many tags (is a `<p>` open to close? which list
//! item is open?), so `n` nested quotes, lists or `<div>`s cost it `n²`: 30 000 `>`
//! took 3.4 s, 100 000 took 47 s. Its serializer scans the rest of a text or
//! attribute for each `&` it escapes, so one with many of them costs their square too.
//! pulldown-cmark itself is linear on every shape measured. So:
//!
//! - elements are nested at most [`MAX_DEPTH`] deep — a deeper Markdown block keeps
//!   its text without its structure, a deeper raw HTML tag is shown as text;
//! - a text or attribute reaches the sanitizer with at most [`MAX_SPECIALS`] of the
//!   characters its serializer escapes that way (a text is split, an attribute or a
//!   link over it dropped);
//! - a tag keeps at most [`super::raw_html::MAX_ATTRIBUTES`] attributes;
//! - at most [`MAX_FORMATTED_BYTES`] of an answer are formatted; the rest is shown as
//!   plain text ([`split_formatted`]).

/// How deep elements are nested in the rendered HTML, at most.
pub(crate) const MAX_DEPTH: usize = 64;

/// The most characters one text or attribute value may hold that the sanitizer's
/// serializer escapes by scanning ahead (`&`, and U+0080–U+00BF, whose UTF-8 starts
/// with the byte `0xC2`).
pub(crate) const MAX_SPECIALS: usize = 256;

/// How much of an answer is formatted as Markdown, in bytes; the rest is shown as
/// plain text.
pub(crate) const MAX_FORMATTED_BYTES: usize = 256 * 1024;

/// How many of the characters [`MAX_SPECIALS`] counts `text` holds.
pub(crate) fn specials(text: &str) -> usize {
    text.bytes().filter(|b| matches!(b, b'&' | 0xC2)).count()
}

/// `markdown` split into the part formatted and the rest shown as plain text: all of it
/// when it is at most `max` bytes, else up to the end of the last line that fits (or,
/// for one longer line, the last character that fits).
pub(crate) fn split_formatted(markdown: &str, max: usize) -> (&str, &str) {
    if markdown.len() <= max {
        return (markdown, "");
    }
    let mut cut = max;
    while !markdown.is_char_boundary(cut) {
        cut -= 1;
    }
    if let Some(line_end) = markdown[..cut].rfind('\n') {
        cut = line_end + 1;
    }
    markdown.split_at(cut)
}

#[cfg(test)]
mod tests {
    use super::{specials, split_formatted};

    #[test]
    fn a_long_answer_is_formatted_up_to_a_line_end_that_fits() {
        let cases = [
            ("short", 10, ("short", "")),
            ("exactly10!", 10, ("exactly10!", "")),
            ("one\ntwo\nthree", 10, ("one\ntwo\n", "three")),
            ("one\ntwo\nthree", 8, ("one\ntwo\n", "three")),
            ("one\ntwo\nthree", 7, ("one\n", "two\nthree")),
            ("abcdefghijkl", 5, ("abcde", "fghijkl")),
            // a cut never falls inside a character
            ("ééééé", 3, ("é", "éééé")),
            ("a\néééé", 4, ("a\n", "éééé")),
        ];
        for (markdown, max, expected) in cases {
            assert_eq!(
                split_formatted(markdown, max),
                expected,
                "{markdown:?} {max}"
            );
        }
    }

    #[test]
    fn ampersands_and_latin_1_symbols_are_counted() {
        let cases = [
            ("plain", 0),
            ("a & b &amp; c", 2),
            ("90° · ©", 3),
            ("é à", 0),
        ];
        for (text, count) in cases {
            assert_eq!(specials(text), count, "{text:?}");
        }
    }
}
