//! Text from outside (the model, tools, stored rows) made safe to print on a terminal.
//!
//! A terminal obeys control characters and escape sequences in what it prints:
//! `ESC [ 2 J` clears the screen, OSC sequences set the window title or write the
//! clipboard, a carriage return overwrites the line. Whatever the program did not write
//! itself goes through [`escape_controls`] first, so it shows as text and commands
//! nothing. Line feeds and tabs stay; carriage returns are dropped (`\r\n` line ends
//! then print as plain lines); every other control character is shown in caret
//! notation (`ESC` as `^[`), and the C1 controls (U+0080–U+009F, which some terminals
//! read as `ESC [` and the like) as `<U+009B>`. Input a message echoes (an id or a
//! name a person typed) goes through [`escape_line`], which shows line breaks and tabs
//! the same way.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` with every control character except line feed and tab made visible (carriage
/// returns dropped). Borrows when there is nothing to change. Works on any split of a
/// stream: each character is handled on its own.
#[must_use]
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    escape(text, Lines::Kept)
}

/// `text` as it is echoed inside a message (an id, a name, a path a person gave): every
/// control character made visible as [`escape_controls`] shows them, line feeds, tabs
/// and carriage returns too (`^J`, `^I`, `^M`), so the echo stays on its line and
/// cannot pass for output of its own. Borrows when there is nothing to change.
#[must_use]
pub fn escape_line(text: &str) -> Cow<'_, str> {
    escape(text, Lines::Escaped)
}

/// What becomes of line feeds, tabs and carriage returns.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lines {
    /// Line feeds and tabs kept, carriage returns dropped.
    Kept,
    /// Shown like every other control character.
    Escaped,
}

fn escape(text: &str, lines: Lines) -> Cow<'_, str> {
    let needs_escape =
        |c: char| c.is_control() && (lines == Lines::Escaped || (c != '\n' && c != '\t'));
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !needs_escape(c) {
            out.push(c);
            continue;
        }
        match c {
            '\r' if lines == Lines::Kept => {}
            '\u{7f}' => out.push_str("^?"),
            c if u32::from(c) < 0x20 => {
                out.push('^');
                // 0x00..0x1f map to '@'..'_'.
                out.push(char::from_u32(u32::from(c) + 0x40).unwrap_or('?'));
            }
            c => {
                let _ = write!(out, "<U+{:04X}>", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_print_as_text() {
        let cases = [
            ("plain text", "plain text"),
            ("lines\nand\ttabs", "lines\nand\ttabs"),
            ("clear \x1b[2J screen", "clear ^[[2J screen"),
            ("title \x1b]0;pwned\x07", "title ^[]0;pwned^G"),
            ("windows\r\nline", "windows\nline"),
            ("over\rwrite", "overwrite"),
            ("bell\x07 nul\0 del\x7f", "bell^G nul^@ del^?"),
            ("c1 \u{9b}31m red", "c1 <U+009B>31m red"),
            ("unicode ✓ é 日本", "unicode ✓ é 日本"),
            ("", ""),
        ];
        for (input, expected) in cases {
            assert_eq!(escape_controls(input), expected, "{input:?}");
        }
    }

    #[test]
    fn an_echoed_line_shows_every_control_character() {
        let cases = [
            ("0191aaaa", "0191aaaa"),
            ("id\x1b[2J", "id^[[2J"),
            ("two\nlines\tand\r", "two^Jlines^Iand^M"),
            ("c1 \u{85} next line", "c1 <U+0085> next line"),
            ("é 日本", "é 日本"),
        ];
        for (input, expected) in cases {
            assert_eq!(escape_line(input), expected, "{input:?}");
        }
        assert!(matches!(escape_line("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn clean_text_is_borrowed() {
        assert!(matches!(
            escape_controls("nothing to do\n"),
            Cow::Borrowed(_)
        ));
    }
}
