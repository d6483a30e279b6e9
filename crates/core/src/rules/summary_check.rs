//! Whether a summary the model wrote may replace the history it summarizes. A small or
//! misconfigured model may answer a summary request with nothing, with chat-template
//! control tokens (`<|im_end|>user` over and over, its turn markers written as text), or
//! with the same passage again and again; stored, such a "summary" would replace real
//! history in every later request. (Whether it makes the context smaller is decided by
//! the caller, who counts tokens.)

use std::collections::HashSet;

/// Words per passage compared by the repetition check.
const SHINGLE_WORDS: usize = 8;
/// Fewer words than this are too few to call repetitive.
const MIN_WORDS_FOR_REPETITION: usize = 3 * SHINGLE_WORDS;
/// A summary whose control tokens are this share (percent) of its text or more is refused.
pub const MAX_CONTROL_PERCENT: u8 = 50;
/// A summary whose passages repeat for this share (percent) of its text or more is refused.
pub const MAX_REPEATED_PERCENT: u8 = 50;

/// What is wrong with a summary that must not replace anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SummaryDefect {
    /// Nothing but whitespace.
    Empty,
    /// Mostly chat-template control tokens (`<|im_end|>`, `<end_of_turn>`, `</s>`, …):
    /// `percent` of its visible characters.
    ControlTokens {
        /// Their share of the visible characters.
        percent: u8,
    },
    /// Mostly the same passage over and over: `percent` of its 8-word passages came
    /// before.
    Repetition {
        /// The share of passages seen before.
        percent: u8,
    },
}

impl std::fmt::Display for SummaryDefect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => f.write_str("the summary is empty"),
            Self::ControlTokens { percent } => write!(
                f,
                "the summary is {percent}% chat-template control tokens (such as <|im_end|>), \
                 not a summary: the model ran past the end of its turn"
            ),
            Self::Repetition { percent } => write!(
                f,
                "the summary repeats itself ({percent}% of it is passages written before): \
                 the model looped instead of summarizing"
            ),
        }
    }
}

/// What is wrong with `summary`, or `None` when it may be stored.
#[must_use]
pub fn summary_defect(summary: &str) -> Option<SummaryDefect> {
    let visible = visible_chars(summary);
    if visible == 0 {
        return Some(SummaryDefect::Empty);
    }
    let control = visible - visible_chars(&without_control_tokens(summary));
    let percent = share(control, visible);
    if percent >= MAX_CONTROL_PERCENT {
        return Some(SummaryDefect::ControlTokens { percent });
    }
    let percent = repeated_percent(summary);
    (percent >= MAX_REPEATED_PERCENT).then_some(SummaryDefect::Repetition { percent })
}

/// Control tokens of the common chat templates written out as text.
const CONTROL_TOKENS: &[&str] = &[
    "<start_of_turn>",
    "<end_of_turn>",
    "<bos>",
    "<eos>",
    "<s>",
    "</s>",
    "[INST]",
    "[/INST]",
    "<<SYS>>",
    "<</SYS>>",
];

/// The role word a template puts right after a turn marker.
const ROLES: &[&str] = &["system", "user", "assistant", "model", "tool"];

/// `text` without its control tokens and the role word right after each one.
fn without_control_tokens(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        let Some(len) = control_token_at(rest) else {
            let next = rest.chars().next().map_or(1, char::len_utf8);
            out.push_str(&rest[..next]);
            rest = &rest[next..];
            continue;
        };
        rest = &rest[len..];
        if let Some(role) = ROLES.iter().find(|role| rest.starts_with(**role)) {
            rest = &rest[role.len()..];
        }
    }
    out
}

/// The length of the control token `text` starts with: a fixed one, or the ChatML /
/// Llama 3 style `<|word|>` (also misspelt `<|word>`, as small models write it).
fn control_token_at(text: &str) -> Option<usize> {
    if let Some(token) = CONTROL_TOKENS.iter().find(|t| text.starts_with(**t)) {
        return Some(token.len());
    }
    let inner = text.strip_prefix("<|")?;
    let word = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .filter(|&end| end > 0 && end <= 40)?;
    let after = &inner[word..];
    let close = if after.starts_with("|>") {
        2
    } else if after.starts_with('>') {
        1
    } else {
        return None;
    };
    Some(2 + word + close)
}

fn visible_chars(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

/// The share (percent) of `text`'s 8-word passages that appeared earlier in it.
fn repeated_percent(text: &str) -> u8 {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() < MIN_WORDS_FOR_REPETITION {
        return 0;
    }
    let mut seen = HashSet::new();
    let mut total = 0;
    let mut repeated = 0;
    for passage in words.windows(SHINGLE_WORDS) {
        total += 1;
        if !seen.insert(passage) {
            repeated += 1;
        }
    }
    share(repeated, total)
}

fn share(part: usize, whole: usize) -> u8 {
    u8::try_from(part.saturating_mul(100) / whole.max(1)).unwrap_or(100)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_that_must_not_replace_history() {
        let good = "## Summary\nThe user asked for the capitals of France and Italy \
                    (Paris, Rome) and had them written to notes.md.\n## Files\n- notes.md";
        let loop_text = "The user asked about Paris and Rome and the file notes.md. ".repeat(6);
        let cases: [(&str, Option<SummaryDefect>); 9] = [
            (good, None),
            ("", Some(SummaryDefect::Empty)),
            (" \n\t", Some(SummaryDefect::Empty)),
            (
                "<|im_end|>\n<|im_start|>user\n<|im_end|>\n<|im_start|>user\n",
                Some(SummaryDefect::ControlTokens { percent: 100 }),
            ),
            // The summary: the misspelt `<|im_end>` and a role word.
            (
                &"<|im_end>user ".repeat(60),
                Some(SummaryDefect::ControlTokens { percent: 100 }),
            ),
            (
                "<start_of_turn>model\nok<end_of_turn>",
                Some(SummaryDefect::ControlTokens { percent: 94 }),
            ),
            // One stray token in a real summary is no reason to refuse it.
            (
                "## Summary\nThe user asked for the capitals of France and Italy.<|im_end|>",
                None,
            ),
            (&loop_text, Some(SummaryDefect::Repetition { percent: 81 })),
            // Markup that is no control token stays content.
            ("<div>a</div> and a | b > c, x <|> y", None),
        ];
        for (summary, expected) in cases {
            assert_eq!(summary_defect(summary), expected, "{summary:?}");
        }
    }

    #[test]
    fn control_tokens_are_recognised_with_their_role_word() {
        let cases = [
            ("<|im_start|>assistant\nHello", "\nHello"),
            ("<|eot_id|>Hi", "Hi"),
            ("a <|> b", "a <|> b"),
            ("<| spaced |>", "<| spaced |>"),
            ("[INST] do it [/INST]", " do it "),
            ("Paris, <b>Rome</b>", "Paris, <b>Rome</b>"),
        ];
        for (text, expected) in cases {
            assert_eq!(without_control_tokens(text), expected, "{text:?}");
        }
    }

    #[test]
    fn the_reasons_are_said_in_words() {
        assert_eq!(
            SummaryDefect::ControlTokens { percent: 97 }.to_string(),
            "the summary is 97% chat-template control tokens (such as <|im_end|>), not a \
             summary: the model ran past the end of its turn"
        );
        assert!(
            SummaryDefect::Repetition { percent: 60 }
                .to_string()
                .contains("60%")
        );
    }
}
