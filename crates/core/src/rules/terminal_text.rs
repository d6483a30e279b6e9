//! Text from outside (the model, tools, stored rows) made safe to print on a terminal.
//!
//! A terminal obeys control characters and escape sequences in what it prints:
//! `ESC [ 2 J` clears the screen, OSC sequences set the window title or write the
//! clipboard, a carriage return overwrites the line. Whatever the program did not write
//! itself goes through [`escape_controls`] first, so it shows as text and commands
//! nothing. Line feeds and tabs stay; carriage returns are dropped (`\r\n` line ends
//! then print as plain lines); every other control character is shown in caret
//! notation (`ESC` as `^[`), and the C1 controls (U+0080–U+009F, which some terminals
//! read as `ESC [` and the like) as `<U+009B>`.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` with every control character except line feed and tab made visible (carriage
/// returns dropped). Borrows when there is nothing to change. Works on any split of a
/// stream: each character is handled on its own.
#[must_use]
pub fn escape_controls(text: &str) -> Cow<'_, str> {
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
            '\r' => {}
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

fn needs_escape(c: char) -> bool {
    c.is_control() && c != '\n' && c != '\t'
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
    fn clean_text_is_borrowed() {
        assert!(matches!(
            escape_controls("nothing to do\n"),
            Cow::Borrowed(_)
        ));
    }
}
