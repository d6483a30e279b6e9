//! A search hit's snippet: the text around the first match, with the searched words
//! marked — as a list of parts, so that no markup is ever inserted into stored text.

use super::title_text::clean_title;

/// The characters a snippet shows (the `…` marks left out).
pub const SNIPPET_CHARS: usize = 160;

/// How many of those come before the first match.
const BEFORE_MATCH: usize = 50;

/// A piece of a snippet: the pieces joined are the snippet; `marked` ones are words
/// of the search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnippetPart {
    /// The text.
    pub text: String,
    /// Whether it is a searched word.
    pub marked: bool,
}

/// Lower-cased runs of letters and digits: the words the full-text index keeps.
fn query_words(query: &str) -> Vec<String> {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The snippet of `text` for the search `query`: cleaned as a title is (control
/// characters and bidi overrides become spaces, whitespace runs one space); the
/// [`SNIPPET_CHARS`] characters around the first word of `text` that is a word of
/// `query` (whole words, case-insensitive, as the index matches them), cut at word
/// boundaries where it can, with `…` where text was left out; every word of `query`
/// in it marked. Without such a word (a stemmed match), the start of the text.
#[must_use]
pub fn snippet(text: &str, query: &str) -> Vec<SnippetPart> {
    let wanted = query_words(query);
    // Shown on one line, where a bidi override would reorder what follows it.
    let flat: Vec<char> = clean_title(text).chars().collect();
    // Words as (start, end) char ranges, and whether each is searched.
    let mut words = Vec::new();
    let mut at = 0;
    while at < flat.len() {
        if flat[at].is_alphanumeric() {
            let start = at;
            while at < flat.len() && flat[at].is_alphanumeric() {
                at += 1;
            }
            let word: String = flat[start..at].iter().collect::<String>().to_lowercase();
            words.push((start, at, wanted.contains(&word)));
        } else {
            at += 1;
        }
    }
    let first = words.iter().find(|w| w.2).map_or(0, |w| w.0);
    let mut start = first.saturating_sub(BEFORE_MATCH);
    let mut end = (start + SNIPPET_CHARS).min(flat.len());
    if end == flat.len() {
        start = end.saturating_sub(SNIPPET_CHARS);
    }
    // Not in the middle of a word, unless the word is longer than the room.
    if let Some(w) = words.iter().find(|w| w.0 < start && start < w.1)
        && w.1 <= first
    {
        start = w.1;
    }
    if let Some(w) = words.iter().find(|w| w.0 < end && end < w.1)
        && w.0 > start
    {
        end = w.0;
    }
    while start < first && flat.get(start) == Some(&' ') {
        start += 1;
    }
    while end > start && end < flat.len() && flat[end - 1] == ' ' {
        end -= 1;
    }
    let mut parts: Vec<SnippetPart> = Vec::new();
    let mut push = |text: String, marked: bool| {
        if text.is_empty() {
            return;
        }
        match parts.last_mut() {
            Some(last) if last.marked == marked && !marked => last.text.push_str(&text),
            _ => parts.push(SnippetPart { text, marked }),
        }
    };
    if start > 0 {
        push("…".to_owned(), false);
    }
    let mut at = start;
    for &(w_start, w_end, marked) in &words {
        if !marked || w_start < start || w_end > end {
            continue;
        }
        push(flat[at..w_start].iter().collect(), false);
        push(flat[w_start..w_end].iter().collect(), true);
        at = w_end;
    }
    push(flat[at..end].iter().collect(), false);
    if end < flat.len() {
        push("…".to_owned(), false);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snippet written as text with `[marked]` words.
    fn shown(parts: &[SnippetPart]) -> String {
        parts
            .iter()
            .map(|p| {
                if p.marked {
                    format!("[{}]", p.text)
                } else {
                    p.text.clone()
                }
            })
            .collect()
    }

    #[test]
    fn the_match_is_shown_in_its_context_and_marked() {
        let long_before = "word ".repeat(40);
        let long_after = " tail".repeat(40);
        let cases = [
            ("run the deploy script", "deploy", "run the [deploy] script"),
            (
                "Deploy, then DEPLOY\nagain",
                "deploy",
                "[Deploy], then [DEPLOY] again",
            ),
            ("redeploy deployment", "deploy", "redeploy deployment"),
            ("a <b>tag</b> & more", "tag", "a <b>[tag]</b> & more"),
            ("deploy-script ok", "deploy-script", "[deploy]-[script] ok"),
            ("", "x", ""),
            ("evil\u{202E}deploy\u{7}", "deploy", "evil [deploy]"),
        ];
        for (text, query, expected) in cases {
            assert_eq!(shown(&snippet(text, query)), expected, "{text:?} {query:?}");
        }
        let text = format!("{long_before}needle{long_after}");
        let cut = shown(&snippet(&text, "needle"));
        assert!(cut.starts_with("…word "), "{cut}");
        assert!(cut.ends_with(" tail…"), "{cut}");
        assert!(cut.contains(" [needle] "), "{cut}");
        assert!(cut.chars().count() <= SNIPPET_CHARS + 4, "{cut}");
        // The first match decides the window; the text without one shows its start.
        let none = shown(&snippet(&format!("start {long_before}"), "absent"));
        assert!(none.starts_with("start word"), "{none}");
        assert!(none.ends_with('…'), "{none}");
    }
}
