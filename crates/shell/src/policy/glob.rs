//! Shell-style glob matching (`*`, `?`, `[…]`) for rule and command words.

/// Whether `text` contains a glob character (`*`, `?` or `[`).
pub(super) fn has_glob_chars(text: &str) -> bool {
    text.contains(['*', '?', '['])
}

/// One element of a compiled glob.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    Literal(char),
    AnyChar,
    AnyRun,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

/// Compiles a glob; an unclosed `[` is a literal.
fn compile(pattern: &str) -> Vec<Piece> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut pieces = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => pieces.push(Piece::AnyRun),
            '?' => pieces.push(Piece::AnyChar),
            '[' => match compile_class(&chars[i + 1..]) {
                Some((piece, used)) => {
                    pieces.push(piece);
                    i += used;
                }
                None => pieces.push(Piece::Literal('[')),
            },
            c => pieces.push(Piece::Literal(c)),
        }
        i += 1;
    }
    pieces
}

/// Compiles the inside of `[…]`; returns the class and how many chars it used
/// (including the closing `]`).
fn compile_class(chars: &[char]) -> Option<(Piece, usize)> {
    let negated = matches!(chars.first(), Some('!' | '^'));
    let mut i = usize::from(negated);
    let mut ranges = Vec::new();
    let mut first = true;
    while i < chars.len() {
        let c = chars[i];
        if c == ']' && !first {
            return Some((Piece::Class { negated, ranges }, i + 1));
        }
        first = false;
        if chars.get(i + 1) == Some(&'-') && chars.get(i + 2).is_some_and(|&e| e != ']') {
            ranges.push((c, chars[i + 2]));
            i += 3;
        } else {
            ranges.push((c, c));
            i += 1;
        }
    }
    None
}

impl Piece {
    /// Whether this single-char piece accepts `c`.
    fn accepts(&self, c: char) -> bool {
        match self {
            Self::Literal(l) => *l == c,
            Self::AnyChar | Self::AnyRun => true,
            Self::Class { negated, ranges } => {
                let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                inside != *negated
            }
        }
    }
}

/// Whether `text` matches the glob `pattern`. With `path`, wildcards match as in shell
/// pathname expansion: never a `/`, nor a `.` starting a name; without it `*` matches
/// anything.
pub(super) fn glob_match(pattern: &str, text: &str, path: bool) -> bool {
    let pieces = compile(pattern);
    let text: Vec<char> = text.chars().collect();
    // matched[j]: the pieces so far can match text[..j].
    // Whether a wildcard may consume text[j].
    let wild_ok: Vec<bool> = (0..text.len())
        .map(|j| {
            let leading_dot = text[j] == '.' && (j == 0 || text[j - 1] == '/');
            !(path && (text[j] == '/' || leading_dot))
        })
        .collect();
    let mut matched = vec![false; text.len() + 1];
    matched[0] = true;
    for piece in &pieces {
        let mut next = vec![false; text.len() + 1];
        if *piece == Piece::AnyRun {
            let mut reachable = false;
            for j in 0..=text.len() {
                if matched[j] {
                    reachable = true;
                } else if j > 0 && !wild_ok[j - 1] {
                    reachable = false;
                }
                next[j] = reachable;
            }
        } else {
            for j in 1..=text.len() {
                let literal = matches!(piece, Piece::Literal(_));
                next[j] =
                    matched[j - 1] && piece.accepts(text[j - 1]) && (literal || wild_ok[j - 1]);
            }
        }
        matched = next;
    }
    matched[text.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_cases() {
        // (pattern, text, path mode, expected)
        let cases: &[(&str, &str, bool, bool)] = &[
            ("mkfs*", "mkfs", false, true),
            ("mkfs*", "mkfs.ext4", false, true),
            ("mkfs*", "mkdir", false, false),
            ("of=/dev/sd*", "of=/dev/sda1", false, true),
            ("of=/dev/sd*", "of=/dev/null", false, false),
            ("*", "a/b", false, true),
            ("*", "a/b", true, false),
            ("*", "/", true, false),
            ("r?", "rm", true, true),
            ("r?", "r/", true, false),
            ("[rR]m", "Rm", false, true),
            ("[!a-z]m", "rm", false, false),
            ("[^a-z]m", "Xm", false, true),
            ("[]]", "]", false, true),
            ("a[b", "a[b", false, true),
            ("*.o", "..", true, false),
            ("*", ".git", true, false),
            ("*", ".git", false, true),
            ("?", ".", true, false),
            ("a/*", "a/.x", true, false),
            ("a*", "a.x", true, true),
            (".*", "..", true, true),
            ("/???/r?", "/bin/rm", true, true),
            ("**a**b", "xxaxxbx", false, false),
            ("", "", false, true),
        ];
        for &(pattern, text, path, expected) in cases {
            assert_eq!(
                glob_match(pattern, text, path),
                expected,
                "{pattern} ~ {text}"
            );
        }
        assert!(has_glob_chars("a*") && has_glob_chars("[x]") && !has_glob_chars("plain"));
    }
}
