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

#[cfg(test)]
mod tests {
    use super::escape_fts_query;

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
