//! [`Matcher`]: the tools a hook entry applies to.

/// Which tool names an entry's `matcher` selects: empty or `*` every tool; names
/// joined by `|` (`ExecuteCommand|WriteFile`) those tools; anything else a regular
/// expression that must match the whole name (`mcp__files__.*`).
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Every tool.
    All,
    /// Exactly these names.
    Names(Vec<String>),
    /// Names the expression matches in full.
    Pattern(regex::Regex),
}

/// Why a matcher cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the matcher {matcher:?} is not a valid regular expression ({reason}); write tool names joined by |, or a valid expression"
)]
pub struct MatcherError {
    /// The matcher as written.
    pub matcher: String,
    /// What the regular expression parser said.
    pub reason: String,
}

/// Largest compiled size of a matcher's expression.
const SIZE_LIMIT: usize = 1 << 20;

impl Matcher {
    /// Reads a matcher as written in hooks.json.
    ///
    /// # Errors
    /// [`MatcherError`] when it is neither names nor a valid regular expression.
    pub fn parse(text: &str) -> Result<Self, MatcherError> {
        let text = text.trim();
        if text.is_empty() || text == "*" {
            return Ok(Self::All);
        }
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '|');
        if text.chars().all(plain) {
            return Ok(Self::Names(
                text.split('|')
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect(),
            ));
        }
        regex::RegexBuilder::new(&format!("^(?:{text})$"))
            .size_limit(SIZE_LIMIT)
            .build()
            .map(Self::Pattern)
            .map_err(|error| MatcherError {
                matcher: text.to_owned(),
                reason: error
                    .to_string()
                    .lines()
                    .last()
                    .unwrap_or("")
                    .trim()
                    .to_owned(),
            })
    }

    /// Whether the tool called `tool` is selected.
    #[must_use]
    pub fn matches(&self, tool: &str) -> bool {
        match self {
            Self::All => true,
            Self::Names(names) => names.iter().any(|name| name == tool),
            Self::Pattern(pattern) => pattern.is_match(tool),
        }
    }
}
