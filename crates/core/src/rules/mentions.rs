//! `@path` mentions in a message typed on the terminal: which words name files to
//! attach.

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

#[cfg(test)]
mod tests {
    use super::*;

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
