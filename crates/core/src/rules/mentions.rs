//! `@path` mentions in a message typed on the terminal: which words name files to
//! attach, and which path is being typed (for completion).

/// Characters a mention may end with that belong to the sentence, not the path.
const TRAILING: &[char] = &[',', ';', ':', '!', '?', ')', ']', '"', '\'', '.'];

/// A word of a message that starts with `@`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mention<'a> {
    /// The path after the `@`, trailing punctuation left out.
    pub path: &'a str,
    /// Whether it can only be meant as a path (it has a `/` or a `.`): when no such
    /// file exists that is an error, while `@alice` is just text.
    pub path_like: bool,
}

/// The `@` words of `text`, in order: `@notes.txt`, `@src/main.rs,` (the comma left
/// out), `@./x`; not an `@` inside a word (`me@example.com`), not a lone `@`.
#[must_use]
pub fn mentions(text: &str) -> Vec<Mention<'_>> {
    text.split_whitespace()
        .filter_map(|word| word.strip_prefix('@'))
        .map(|rest| rest.trim_end_matches(TRAILING))
        .filter(|path| !path.is_empty())
        .map(|path| Mention {
            path,
            path_like: path.contains(['/', '.']),
        })
        .collect()
}

/// The command whose argument is a file path.
const ATTACH: &str = "/attach ";

/// Where the file path being typed at the end of `typed` (the line up to the cursor)
/// starts, for completion: just after an `@` opening the last word, or after
/// `/attach ` (when the path has no space yet). `None` when no path is being typed.
#[must_use]
pub fn path_being_typed(typed: &str) -> Option<usize> {
    if let Some(rest) = typed.strip_prefix(ATTACH) {
        let path = rest.trim_start();
        return (!path.contains(char::is_whitespace)).then_some(typed.len() - path.len());
    }
    let word = typed.rfind(char::is_whitespace).map_or(0, |at| {
        at + typed[at..].chars().next().map_or(1, char::len_utf8)
    });
    typed[word..].starts_with('@').then_some(word + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_path_being_typed_follows_an_at_or_slash_attach() {
        let cases: &[(&str, Option<usize>)] = &[
            ("read @no", Some(6)),
            ("@", Some(1)),
            ("read @src/ma", Some(6)),
            ("mail me@exa", None),
            ("read @notes.txt and", None),
            ("plain words", None),
            ("/attach ", Some(8)),
            ("/attach  doc", Some(9)),
            ("/attach my file", None),
            ("/attachx", None),
            ("é @x", Some(4)),
            ("", None),
        ];
        for (typed, expected) in cases {
            assert_eq!(path_being_typed(typed), *expected, "{typed:?}");
        }
    }

    #[test]
    fn at_words_are_mentions_and_paths_are_told_apart() {
        let cases: &[(&str, &[(&str, bool)])] = &[
            ("read @notes.txt please", &[("notes.txt", true)]),
            (
                "compare @src/a.rs, @./b.rs and @Makefile.",
                &[("src/a.rs", true), ("./b.rs", true), ("Makefile", false)],
            ),
            ("ask @alice?", &[("alice", false)]),
            ("mail me@example.com or @ alone", &[]),
            ("(see @docs/x.md)", &[("docs/x.md", true)]),
            ("", &[]),
        ];
        for (text, expected) in cases {
            let found: Vec<(&str, bool)> = mentions(text)
                .into_iter()
                .map(|m| (m.path, m.path_like))
                .collect();
            assert_eq!(found, expected.to_vec(), "{text}");
        }
    }
}
