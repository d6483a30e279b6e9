//! Turning a person's (or the model's) search text into a safe FTS5 query.

/// Escapes free text for FTS5 `MATCH`: every word becomes a quoted string (inner `"`
/// doubled), so operators (`AND`, `OR`, `NOT`, `NEAR`), column filters (`:`), prefix
/// `*`, `-`, `^`, `+` and parentheses are searched as text, never parsed as syntax.
/// Words are implicitly AND-ed. Words without any letter or digit are dropped (FTS5
/// would index nothing for them). Returns `None` when nothing searchable is left.
#[must_use]
pub fn escape_fts_query(text: &str) -> Option<String> {
    let words: Vec<String> = text
        .split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// Lower-cased runs of letters and digits: the words FTS5's `unicode61` tokenizer
/// would index (without its diacritic folding).
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// Whether `body` holds every word of the search `text`, as the index would match it
/// (up to diacritics and word order inside one quoted word): how a store that may not
/// write the index searches the rows not indexed yet.
#[must_use]
pub fn matches_unindexed(body: &str, text: &str) -> bool {
    let found: std::collections::HashSet<String> = words(body).collect();
    let mut wanted = words(text).peekable();
    wanted.peek().is_some() && wanted.all(|w| found.contains(&w))
}

#[cfg(test)]
mod tests {
    use super::{escape_fts_query, matches_unindexed};

    #[test]
    fn unindexed_rows_match_whole_words_of_every_search_word() {
        let cases: &[(&str, &str, bool)] = &[
            ("The Pelican config is in etc", "pelican", true),
            ("The Pelican config is in etc", "PELICAN etc", true),
            ("The Pelican config is in etc", "pelican missing", false),
            ("pelicans", "pelican", false),
            ("find . -name pelican.toml", "pelican.toml", true),
            ("anything", "* - :", false),
            ("日本語 text", "日本語", true),
        ];
        for (body, text, expected) in cases {
            assert_eq!(
                matches_unindexed(body, text),
                *expected,
                "{body:?} / {text:?}"
            );
        }
    }

    #[test]
    fn escapes_every_syntax_character() {
        let cases: &[(&str, Option<&str>)] = &[
            ("hello", Some("\"hello\"")),
            ("hello world", Some("\"hello\" \"world\"")),
            ("  spaced   out ", Some("\"spaced\" \"out\"")),
            ("say \"hi\"", Some("\"say\" \"\"\"hi\"\"\"")),
            ("pre*", Some("\"pre*\"")),
            ("-excluded", Some("\"-excluded\"")),
            ("col:value", Some("\"col:value\"")),
            ("a NEAR b", Some("\"a\" \"NEAR\" \"b\"")),
            (
                "a AND b OR c NOT d",
                Some("\"a\" \"AND\" \"b\" \"OR\" \"c\" \"NOT\" \"d\""),
            ),
            ("(grouped)", Some("\"(grouped)\"")),
            ("* - : ( ) \"", None),
            ("", None),
            ("日本語", Some("\"日本語\"")),
        ];
        for (input, expected) in cases {
            assert_eq!(
                escape_fts_query(input).as_deref(),
                *expected,
                "input {input:?}"
            );
        }
    }
}
