//! Plain answer text wrapped at word boundaries as it streams, for a terminal without
//! colours (`NO_COLOR`): no escape sequence, no redrawing, so a word is held back until
//! it ends and then printed on the line where it fits. Only a word wider than the
//! terminal is cut.

use unicode_width::UnicodeWidthChar;

/// Columns a tab advances to the next multiple of.
const TAB_STOP: usize = 8;

/// The state of the line being printed.
#[derive(Debug, Default)]
pub struct PlainWrap {
    /// Columns printed on the current line.
    column: usize,
    /// Spaces and tabs after the last word printed, not printed yet.
    gap: String,
    /// The word being read, not printed yet, and its width.
    word: String,
    word_width: usize,
}

impl PlainWrap {
    /// Adds streamed text (control characters already made visible); returns what to
    /// print, with line breaks where the terminal of `width` columns needs them.
    pub fn push(&mut self, text: &str, width: usize) -> String {
        let width = width.max(1);
        let mut out = String::new();
        for c in text.chars() {
            match c {
                '\n' => {
                    self.place_word(&mut out, width);
                    self.gap.clear();
                    out.push('\n');
                    self.column = 0;
                }
                ' ' | '\t' => {
                    self.place_word(&mut out, width);
                    self.gap.push(c);
                }
                c => {
                    let w = c.width().unwrap_or(0);
                    if self.word_width + w > width {
                        // Wider than a whole line: cut where the line ends.
                        self.place_word(&mut out, width);
                        out.push('\n');
                        self.column = 0;
                    }
                    self.word.push(c);
                    self.word_width += w;
                }
            }
        }
        out
    }

    /// Prints the word held back (the answer ended or stops here): what to print. The
    /// next text starts a new line.
    pub fn finish(&mut self, width: usize) -> String {
        let mut out = String::new();
        self.place_word(&mut out, width.max(1));
        *self = Self::default();
        out
    }

    /// Prints the word read (with the gap before it when both fit on this line, else
    /// on a new line without it).
    fn place_word(&mut self, out: &mut String, width: usize) {
        if self.word.is_empty() {
            return;
        }
        let gap = gap_width(&self.gap, self.column);
        if self.column + gap + self.word_width <= width {
            out.push_str(&self.gap);
            self.column += gap;
        } else if self.column > 0 {
            out.push('\n');
            self.column = 0;
        }
        out.push_str(&self.word);
        self.column += self.word_width;
        self.gap.clear();
        self.word.clear();
        self.word_width = 0;
    }
}

/// Columns `gap` (spaces and tabs) takes when printed at `column`.
fn gap_width(gap: &str, column: usize) -> usize {
    gap.chars().fold(column, |at, c| match c {
        '\t' => (at / TAB_STOP + 1) * TAB_STOP,
        _ => at + 1,
    }) - column
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_width::UnicodeWidthStr;

    fn wrapped(text: &str, width: usize, piece: usize) -> String {
        let chars: Vec<char> = text.chars().collect();
        let mut wrap = PlainWrap::default();
        let mut out: String = chars
            .chunks(piece)
            .map(|chunk| wrap.push(&chunk.iter().collect::<String>(), width))
            .collect();
        out.push_str(&wrap.finish(width));
        out
    }

    #[test]
    fn text_breaks_between_words_at_the_width() {
        let cases = [
            ("short words", 40, "short words"),
            ("one two three four", 9, "one two\nthree\nfour"),
            ("keep\nlines\n\nand blanks", 40, "keep\nlines\n\nand blanks"),
            ("  indented line", 40, "  indented line"),
            ("abcdefghij klm", 4, "abcd\nefgh\nij\nklm"),
            ("宽字符 宽字符", 7, "宽字符\n宽字符"),
            ("a\tb", 40, "a\tb"),
            ("exactly ten", 11, "exactly ten"),
            ("ends with a space ", 40, "ends with a space"),
        ];
        for (text, width, expected) in cases {
            for piece in [1, 2, 3, 7, 100] {
                assert_eq!(wrapped(text, width, piece), expected, "{text:?} by {piece}");
            }
        }
    }

    #[test]
    fn no_word_is_cut_at_width_40() {
        let text = "Streaming answers arrive in small pieces, and a terminal without \
                    colours still deserves lines that break between words rather than \
                    inside them: internationalization, responsibilities and \
                    characteristically long words included.\nA second paragraph follows.";
        let words: Vec<&str> = text.split_whitespace().collect();
        for piece in [1, 4, 9, 33] {
            let out = wrapped(text, 40, piece);
            for line in out.lines() {
                assert!(line.width() <= 40, "{line:?}");
            }
            let shown: Vec<&str> = out.split_whitespace().collect();
            assert_eq!(shown, words, "{out}");
        }
    }
}
