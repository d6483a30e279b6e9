//! Where a streamed answer's finished units end. A unit is what can be committed to
//! the screen once it is complete and never changes after: a blank line, a heading, a
//! rule, a paragraph, one top-level list item (with what is nested under it), a block
//! quote, a table, and in a fenced code block each line (its opening and closing fence
//! too). Only complete lines are classified; the text after the last finished unit is
//! the open unit, drawn and redrawn until it is finished.

/// What a finished unit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Blank lines (one).
    Blank,
    /// Markdown rendered as a whole: a paragraph, heading, rule, list item, quote,
    /// table.
    Markdown,
    /// The opening fence of a code block.
    FenceOpen,
    /// One line of code.
    CodeLine,
    /// The closing fence of a code block.
    FenceClose,
}

/// The fence of the code block being read: its character and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence {
    /// `` ` `` or `~`.
    pub marker: char,
    /// How many of them (at least 3).
    pub len: usize,
}

/// The kind of block a unit's first line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Paragraph,
    List,
    Quote,
    Table,
}

/// The first finished unit at the start of `text` (which starts at a line start) and
/// its length in bytes; `None` while the unit may still grow. `fence` is the code block
/// being read, if any.
pub fn next_unit(text: &str, fence: Option<Fence>) -> Option<(Unit, usize)> {
    let mut lines = complete_lines(text);
    let (_, first) = lines.next()?;
    if let Some(fence) = fence {
        let unit = if closes(first, fence) {
            Unit::FenceClose
        } else {
            Unit::CodeLine
        };
        return Some((unit, first.len()));
    }
    if is_blank(first) {
        return Some((Unit::Blank, first.len()));
    }
    if opening_fence(first).is_some() {
        return Some((Unit::FenceOpen, first.len()));
    }
    if is_heading(first) || is_rule(first) {
        return Some((Unit::Markdown, first.len()));
    }
    let kind = kind_of(first);
    let mut blank_from = None;
    for (at, line) in lines {
        if is_blank(line) {
            if kind != Kind::List {
                return Some((Unit::Markdown, at));
            }
            blank_from.get_or_insert(at);
            continue;
        }
        let indent = indent_of(line);
        if let Some(blank) = blank_from.take() {
            // After a blank line only an indented line goes on with a list item.
            if indent < 2 {
                return Some((Unit::Markdown, blank));
            }
            continue;
        }
        let goes_on = match kind {
            Kind::Paragraph => {
                if is_setext_underline(line) {
                    return Some((Unit::Markdown, at + line.len()));
                }
                !starts_block(line)
            }
            Kind::List => indent >= 2 || !starts_block(line),
            Kind::Quote => line.trim_start().starts_with('>'),
            Kind::Table => line.trim_start().starts_with('|'),
        };
        if !goes_on {
            return Some((Unit::Markdown, at));
        }
    }
    if kind == Kind::List {
        // A top-level item being written ends the one before as its complete line will:
        // that is settled once its marker and the space after it are in.
        let at = text.rfind('\n').map_or(0, |i| i + 1);
        let last = &text[at..];
        if indent_of(last) < 2 && is_list_marker(last) {
            return Some((Unit::Markdown, blank_from.unwrap_or(at)));
        }
    }
    None
}

/// The complete lines of `text` (with their `\n`) and where each starts.
fn complete_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_inclusive('\n')
        .scan(0, |at, line| {
            let start = *at;
            *at += line.len();
            Some((start, line))
        })
        .take_while(|(_, line)| line.ends_with('\n'))
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Columns of leading white space (a tab counts 4).
fn indent_of(line: &str) -> usize {
    line.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// The fence a line opens (``` or ~~~, indented at most 3), if any.
pub fn opening_fence(line: &str) -> Option<Fence> {
    if indent_of(line) > 3 {
        return None;
    }
    let trimmed = line.trim_start();
    let marker = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = trimmed.chars().take_while(|c| *c == marker).count();
    if len < 3 {
        return None;
    }
    // A backtick fence's info string holds no backtick.
    let info = &trimmed[len..];
    if marker == '`' && info.contains('`') {
        return None;
    }
    Some(Fence { marker, len })
}

/// The language of an opening fence line (the info string's first word).
pub fn fence_language(line: &str) -> &str {
    line.trim()
        .trim_start_matches(['`', '~'])
        .split_whitespace()
        .next()
        .unwrap_or("")
}

fn closes(line: &str, fence: Fence) -> bool {
    let trimmed = line.trim();
    indent_of(line) <= 3 && trimmed.len() >= fence.len && trimmed.chars().all(|c| c == fence.marker)
}

fn is_heading(line: &str) -> bool {
    let trimmed = line.trim_start();
    let hashes = trimmed.chars().take_while(|c| *c == '#').count();
    indent_of(line) <= 3
        && (1..=6).contains(&hashes)
        && trimmed[hashes..].starts_with([' ', '\t', '\n'])
}

fn is_rule(line: &str) -> bool {
    let mut marks = line.chars().filter(|c| !c.is_whitespace());
    let Some(mark) = marks.next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    let mut count = 1;
    indent_of(line) <= 3
        && marks.all(|c| {
            count += 1;
            c == mark
        })
        && count >= 3
}

fn is_setext_underline(line: &str) -> bool {
    let trimmed = line.trim();
    indent_of(line) <= 3
        && !trimmed.is_empty()
        && (trimmed.chars().all(|c| c == '=') || trimmed.chars().all(|c| c == '-'))
}

fn is_list_marker(line: &str) -> bool {
    if indent_of(line) > 3 {
        return false;
    }
    let trimmed = line.trim_start();
    let after = if let Some(rest) = trimmed.strip_prefix(['-', '*', '+']) {
        rest
    } else {
        let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
        if !(1..=9).contains(&digits) {
            return false;
        }
        match trimmed[digits..].strip_prefix(['.', ')']) {
            Some(rest) => rest,
            None => return false,
        }
    };
    after.starts_with([' ', '\t', '\n'])
}

/// A line of an open paragraph this long (or whose text starts with a letter: see
/// `text_starts_with_letter`) has its block kind settled (no list marker,
/// heading or fence can start it any more): text added to it only extends it.
const SETTLED_LINE: usize = 12;

/// Whether `added` after `open` (an open paragraph's text) only extends it: the text
/// is parsed as the paragraph so far followed by `added` as plain text. So `added` holds
/// only letters, digits, spaces and punctuation that opens or closes nothing, no line
/// break; the line it goes on is long enough to be settled; and it does not complete an
/// entity or escape begun at the end of `open`.
pub(crate) fn extends_plainly(open: &str, added: &str) -> bool {
    let last_word = open.rsplit([' ', '\t', '\n']).next().unwrap_or(open);
    last_line_settled(open)
        && !last_word.contains(['&', '\\'])
        && added.chars().all(|c| {
            c.is_alphanumeric()
                || matches!(
                    c,
                    ' ' | ','
                        | '.'
                        | ';'
                        | ':'
                        | '?'
                        | '!'
                        | '\''
                        | '"'
                        | '-'
                        | '/'
                        | '+'
                        | '='
                        | '%'
                )
        })
}

/// Whether the last line of an open paragraph's text has its block kind settled: it is
/// long enough, or its text starts with a letter (see `text_starts_with_letter`).
pub(crate) fn last_line_settled(open: &str) -> bool {
    let last_line = open.rsplit('\n').next().unwrap_or(open);
    last_line.len() >= SETTLED_LINE || text_starts_with_letter(last_line)
}

/// Whether shown paragraph text holds a character of markup left open, that text
/// after it could still close (an unmatched `*`, `_`, `~` or backtick, a bracket not
/// made a link, a `<`); such characters shown as text (in code, escaped) count too.
pub(crate) fn leaves_markup_open(shown: &str) -> bool {
    shown.contains(['*', '_', '~', '`', '[', ']', '<'])
}

/// Whether a line (maybe not complete) has its block kind settled because its text,
/// after the list markers it opens with, starts with a letter: no block starts with
/// one, so what is added to the line cannot change its kind.
fn text_starts_with_letter(line: &str) -> bool {
    let mut rest = line.trim_start_matches(' ');
    loop {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let marker = match rest.chars().next() {
            Some('-' | '*' | '+') => 1,
            _ if (1..=9).contains(&digits) && rest[digits..].starts_with(['.', ')']) => digits + 1,
            _ => break,
        };
        match rest[marker..].strip_prefix(' ') {
            Some(after) => rest = after.trim_start_matches(' '),
            None => return false,
        }
    }
    rest.chars().next().is_some_and(char::is_alphabetic)
}

/// Whether a line starts a block of its own (and so ends a paragraph).
fn starts_block(line: &str) -> bool {
    opening_fence(line).is_some()
        || is_heading(line)
        || is_rule(line)
        || is_list_marker(line)
        || kind_of(line) == Kind::Quote
        || kind_of(line) == Kind::Table
}

/// Whether an open unit (not code) starting as `open` does is drawn again only when
/// one of its lines ends: a table (a row half typed has no columns yet) or a quote.
pub fn drawn_by_line(open: &str) -> bool {
    let first = open.split('\n').next().unwrap_or(open);
    matches!(kind_of(first), Kind::Quote | Kind::Table)
}

fn kind_of(line: &str) -> Kind {
    let trimmed = line.trim_start();
    if indent_of(line) > 3 {
        Kind::Paragraph
    } else if trimmed.starts_with('>') {
        Kind::Quote
    } else if trimmed.starts_with('|') {
        Kind::Table
    } else if is_list_marker(line) {
        Kind::List
    } else {
        Kind::Paragraph
    }
}

#[cfg(test)]
#[path = "split_tests.rs"]
mod tests;
