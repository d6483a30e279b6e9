//! What a stored conversation title may contain: no control characters and no
//! bidirectional overrides or isolates, which would let a title reorder or hide the
//! text shown around it (in the page's list, the terminal, an exported file).

/// The bidirectional embeddings, overrides (U+202A–U+202E) and isolates
/// (U+2066–U+2069).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `title` as it may be stored: every control character (U+0000–U+001F,
/// U+007F–U+009F) and bidirectional override or isolate becomes a space, runs of
/// whitespace become one space, and the ends are trimmed. Used wherever a title is
/// stored: a rename, a generated title, the fallback title from the first message.
#[must_use]
pub fn clean_title(title: &str) -> String {
    let spaced: String = title
        .chars()
        .map(|c| {
            if c.is_control() || is_bidi_control(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_overrides_are_taken_out() {
        let cases = [
            ("Trip planning", "Trip planning"),
            ("  padded  ", "padded"),
            ("two\nlines\tand tab", "two lines and tab"),
            ("bell\u{7}here", "bell here"),
            ("esc\u{1b}[31mred", "esc [31mred"),
            ("c1\u{85}next\u{9f}", "c1 next"),
            ("del\u{7f}", "del"),
            ("invoice\u{202E}fdp.exe", "invoice fdp.exe"),
            ("\u{202A}\u{202B}\u{202C}\u{202D}x", "x"),
            ("a\u{2066}b\u{2067}c\u{2068}d\u{2069}", "a b c d"),
            // Marks that only hint at direction, and other scripts, stay.
            ("ab\u{200E}c", "ab\u{200E}c"),
            ("日本語 עברית", "日本語 עברית"),
            ("\u{202E}\n", ""),
        ];
        for (input, expected) in cases {
            assert_eq!(clean_title(input), expected, "{input:?}");
        }
    }
}
