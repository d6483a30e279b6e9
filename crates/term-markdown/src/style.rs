//! Styled text: a [`Span`] is text with a [`Look`]; a line of spans becomes a string
//! with ANSI SGR escapes, or plain text when colours are off.

use unicode_width::UnicodeWidthStr;

/// A foreground colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    /// One of the 8 basic colours (30–37).
    Basic(u8),
    /// An index of the 256-colour palette.
    Palette(u8),
}

/// How a span looks: weight, slant, decoration, colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Look {
    /// Bold.
    pub bold: bool,
    /// Italic.
    pub italic: bool,
    /// Underlined.
    pub underline: bool,
    /// Struck through.
    pub strike: bool,
    /// Faint.
    pub dim: bool,
    /// Foreground colour.
    pub fg: Option<Colour>,
}

impl Look {
    /// Plain text.
    pub const PLAIN: Self = Self {
        bold: false,
        italic: false,
        underline: false,
        strike: false,
        dim: false,
        fg: None,
    };

    /// Faint text (gutters, borders, link targets).
    pub const DIM: Self = Self {
        dim: true,
        ..Self::PLAIN
    };

    /// Writes the SGR parameters of this look (`1;3;33`) to `out`; nothing for plain
    /// text.
    fn write_sgr(self, out: &mut String) {
        use std::fmt::Write;
        let start = out.len();
        for (on, code) in [
            (self.bold, "1"),
            (self.dim, "2"),
            (self.italic, "3"),
            (self.underline, "4"),
            (self.strike, "9"),
        ] {
            if on {
                if out.len() > start {
                    out.push(';');
                }
                out.push_str(code);
            }
        }
        if let Some(fg) = self.fg {
            if out.len() > start {
                out.push(';');
            }
            // Writing to a String cannot fail.
            let _ = match fg {
                Colour::Basic(c) => write!(out, "{}", 30 + c.min(7)),
                Colour::Palette(i) => write!(out, "38;5;{i}"),
            };
        }
    }
}

/// Text with one look. The text is already safe to print (control characters escaped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The text.
    pub text: String,
    /// How it looks.
    pub look: Look,
}

impl Span {
    /// A span of `text` looking like `look`.
    pub fn new(text: impl Into<String>, look: Look) -> Self {
        Self {
            text: text.into(),
            look,
        }
    }

    /// Plain text.
    pub fn plain(text: impl Into<String>) -> Self {
        Self::new(text, Look::PLAIN)
    }
}

/// A rendered line: spans side by side.
pub type Line = Vec<Span>;

/// Display columns of a line.
pub fn line_width(line: &[Span]) -> usize {
    line.iter().map(|s| text_width(&s.text)).sum()
}

/// Display columns of a text: printable ASCII counted by its bytes (most text), the
/// rest by its characters' widths.
pub fn text_width(text: &str) -> usize {
    if text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        text.len()
    } else {
        text.width()
    }
}

/// A line as printed: with SGR escapes around each styled run when `ansi`, else plain.
pub fn line_string(line: &[Span], ansi: bool) -> String {
    let mut out = String::with_capacity(line.iter().map(|s| s.text.len() + 16).sum());
    for span in line {
        if !ansi || span.look == Look::PLAIN {
            out.push_str(&span.text);
        } else {
            out.push_str("\x1b[");
            span.look.write_sgr(&mut out);
            out.push('m');
            out.push_str(&span.text);
            out.push_str("\x1b[0m");
        }
    }
    out
}

/// Appends `text` to `line`, joining it to the last span when that looks the same.
pub fn push_text(line: &mut Line, text: &str, look: Look) {
    match line.last_mut() {
        Some(last) if last.look == look => last.text.push_str(text),
        _ => line.push(Span::new(text, look)),
    }
}

/// The 256-colour palette index nearest to an RGB colour (the 6×6×6 cube or the grey
/// ramp): every terminal that has colours has these.
pub fn palette_index(r: u8, g: u8, b: u8) -> u8 {
    let level = |v: u8| -> u8 {
        match v {
            0..=47 => 0,
            48..=114 => 1,
            v => (v - 35) / 40,
        }
    };
    let (max, min) = (r.max(g).max(b), r.min(g).min(b));
    if max - min < 12 {
        let grey = (u16::from(r) + u16::from(g) + u16::from(b)) / 3;
        return match grey {
            0..=7 => 16,
            248..=255 => 231,
            g => 232 + ((g - 8) / 10).min(23) as u8,
        };
    }
    16 + 36 * level(r) + 6 * level(g) + level(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_print_with_escapes_only_when_asked() {
        let bold = Look {
            bold: true,
            ..Look::PLAIN
        };
        let code = Look {
            fg: Some(Colour::Palette(180)),
            ..Look::PLAIN
        };
        let line = vec![
            Span::plain("a "),
            Span::new("b", bold),
            Span::new("c", code),
        ];
        let cases = [
            (true, "a \x1b[1mb\x1b[0m\x1b[38;5;180mc\x1b[0m"),
            (false, "a bc"),
        ];
        for (ansi, expected) in cases {
            assert_eq!(line_string(&line, ansi), expected, "{ansi}");
        }
        assert_eq!(line_width(&line), 4);
        for (text, width) in [("ab c~", 5), ("宽字符", 6), ("e\u{301}", 1), ("", 0)] {
            assert_eq!(text_width(text), width, "{text:?}");
        }
    }

    #[test]
    fn rgb_maps_to_the_nearest_palette_entry() {
        let cases = [
            ((0, 0, 0), 16),
            ((255, 255, 255), 231),
            ((255, 0, 0), 196),
            ((0, 0, 255), 21),
            ((128, 128, 128), 244),
            ((95, 135, 175), 67),
        ];
        for ((r, g, b), index) in cases {
            assert_eq!(palette_index(r, g, b), index, "{r} {g} {b}");
        }
    }
}
