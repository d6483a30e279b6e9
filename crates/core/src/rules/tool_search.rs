//! Tools loaded on demand: when the tools that may wait (MCP tools not pinned) are
//! left out of the requests ([`defers`]), and which of them a search finds ([`rank`]).

/// When the tools that may wait are left out of the requests (agent.json `mcp`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToolLoading {
    /// Left out when their schemas would take more than this share of the context
    /// window (`maxSchemaShare`, default 0.10).
    pub max_share: f64,
    /// Left out when there are more of them than this (`maxLoadedTools`, default 50).
    pub max_tools: usize,
}

impl ToolLoading {
    /// The default share of the window the schemas may take.
    pub const DEFAULT_MAX_SHARE: f64 = 0.10;
    /// The default number of tools sent with every request.
    pub const DEFAULT_MAX_TOOLS: usize = 50;
}

impl Default for ToolLoading {
    fn default() -> Self {
        Self {
            max_share: Self::DEFAULT_MAX_SHARE,
            max_tools: Self::DEFAULT_MAX_TOOLS,
        }
    }
}

/// Whether `count` tools whose schemas take `tokens` are left out of a `window`-token
/// context's requests (offered through the search tool instead): when there are more
/// of them than `loading.max_tools`, or their schemas take more than
/// `loading.max_share` of the window. Never when there are none.
#[must_use]
pub fn defers(loading: ToolLoading, count: usize, tokens: u64, window: u64) -> bool {
    if count == 0 {
        return false;
    }
    // Whole tokens: a share of a window, rounded down (precision loss is immaterial).
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let allowed = (window as f64 * loading.max_share.max(0.0)) as u64;
    count > loading.max_tools || tokens > allowed
}

/// The words of `text`, lowercase: split at anything not a letter or digit and where
/// a lowercase letter is followed by an uppercase one (`readFile` → `read`, `file`).
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in text.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_numeric();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Points for one query word against a tool's name and description: a word of the
/// name 4, part of the name 2, a word of the description 2, part of one 1.
fn word_score(query: &str, name: &str, name_words: &[String], description: &[String]) -> u32 {
    if name_words.iter().any(|w| w == query) {
        4
    } else if name.contains(query) || description.iter().any(|w| w == query) {
        2
    } else if query.len() >= 3 && description.iter().any(|w| w.contains(query)) {
        1
    } else {
        0
    }
}

/// The tools (`(name, description)`) that match `query`, best first, at most `limit`:
/// a tool named exactly as the query (case aside) comes first; then by points for each
/// query word found in the name (more) or the description (less); ties keep the
/// tools' order. Tools that match no word are left out.
#[must_use]
pub fn rank(query: &str, tools: &[(&str, &str)], limit: usize) -> Vec<usize> {
    let query_words = words(query);
    let whole = query.trim().to_lowercase();
    let mut scored: Vec<(u32, usize)> = tools
        .iter()
        .enumerate()
        .filter_map(|(index, (name, description))| {
            let lower = name.to_lowercase();
            if !whole.is_empty() && lower == whole {
                return Some((u32::MAX, index));
            }
            let name_words = words(name);
            let description = words(description);
            let score: u32 = query_words
                .iter()
                .map(|q| word_score(q, &lower, &name_words, &description))
                .sum();
            (score > 0).then_some((score, index))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().take(limit).map(|(_, i)| i).collect()
}

/// The pinned tools (agent.json `mcp.pinnedTools`, as registry names `server__tool`)
/// that are not among the `offered` tool names, in order: pins no server offers.
#[must_use]
pub fn unoffered_pins<'a>(pinned: &'a [String], offered: &[String]) -> Vec<&'a str> {
    pinned
        .iter()
        .filter(|pin| !offered.contains(pin))
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{ToolLoading, defers, rank, unoffered_pins, words};

    #[test]
    fn tools_wait_over_the_count_or_the_share() {
        let loading = ToolLoading::default();
        let cases = [
            // count, tokens, window, deferred
            (0, 1_000_000, 8_000, false),
            (1, 100, 128_000, false),
            (50, 12_800, 128_000, false),
            (51, 100, 128_000, true),
            (10, 12_801, 128_000, true),
            (10, 900, 8_000, true),
            (10, 800, 8_000, false),
            (200, 0, u64::MAX, true),
        ];
        for (count, tokens, window, expected) in cases {
            assert_eq!(
                defers(loading, count, tokens, window),
                expected,
                "{count} {tokens} {window}"
            );
        }
        let never = ToolLoading {
            max_share: 1.0,
            max_tools: usize::MAX,
        };
        assert!(!defers(never, 500, 100_000, 128_000));
        let always = ToolLoading {
            max_share: 0.0,
            max_tools: 0,
        };
        assert!(defers(always, 1, 0, 128_000));
    }

    #[test]
    fn words_split_at_punctuation_and_case() {
        let cases: [(&str, &[&str]); 5] = [
            ("files__read_file", &["files", "read", "file"]),
            ("readFile", &["read", "file"]),
            ("GitHub PR list", &["git", "hub", "pr", "list"]),
            ("v2.Search", &["v2", "search"]),
            ("", &[]),
        ];
        for (text, expected) in cases {
            assert_eq!(words(text), expected, "{text}");
        }
    }

    #[test]
    fn the_best_matches_first() {
        let tools = [
            ("files__read_file", "Read a file from the disk"),
            ("files__write_file", "Write a file to the disk"),
            ("git__log", "Show the commit log of a repository"),
            ("weather__forecast", "The weather forecast for a city"),
            ("git__commit", "Record changes to the repository"),
        ];
        let cases: [(&str, usize, &[usize]); 8] = [
            ("read file", 5, &[0, 1]),
            ("weather", 5, &[3]),
            ("repository", 5, &[2, 4]),
            ("git commit", 5, &[4, 2]),
            ("GIT__LOG", 5, &[2, 4]),
            ("git", 1, &[2]),
            ("nothing matches", 5, &[]),
            ("", 5, &[]),
        ];
        for (query, limit, expected) in cases {
            assert_eq!(rank(query, &tools, limit), expected, "{query}");
        }
    }

    #[test]
    fn parts_of_words_count_less() {
        let tools = [
            ("a__forecasting", "x"),
            ("b__other", "weekly forecasts"),
            ("c__forecast", "x"),
        ];
        // c's name has the word; a's name contains it; b's description contains it.
        assert_eq!(rank("forecast", &tools, 5), [2, 0, 1]);
        // Too short to match inside a description word.
        assert_eq!(rank("fo", &tools, 5), [0, 2]);
    }

    #[test]
    fn pins_no_server_offers_are_found() {
        let pinned = vec![
            "t__echo".to_owned(),
            "t__nope".to_owned(),
            "x__y".to_owned(),
        ];
        let offered = vec!["t__echo".to_owned(), "t__fail".to_owned()];
        assert_eq!(unoffered_pins(&pinned, &offered), ["t__nope", "x__y"]);
        assert!(unoffered_pins(&[], &offered).is_empty());
    }
}
