//! The one-line texts some events are printed as: a retry, a compression's outcome,
//! the context figure after a turn.

use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_protocol::history::AnswerCut;

use super::Style;

/// Formats a token count as `12.3k`.
pub fn tokens(n: u64) -> String {
    if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// `[retrying (2/5) in 1.0 s: reason]`, plus what happened to the text the attempt
/// had streamed: `None` when it streamed none, else whether it was shown (`above`).
pub(super) fn retry_line(
    (attempt, max): (u32, u32),
    delay_ms: u64,
    reason: &str,
    discarded: Option<bool>,
) -> String {
    let discarded = match discarded {
        None => "",
        Some(false) => " — the partial answer is discarded",
        Some(true) => " — the partial answer above is discarded",
    };
    format!(
        "[retrying ({attempt}/{max}) in {:.1} s: {}{discarded}]",
        delay_ms as f64 / 1000.0,
        escape_controls(reason)
    )
}

/// What a cut answer is marked with, wherever it is shown (after the answer, in a
/// reopened conversation's transcript, in `conversations show`).
#[must_use]
pub fn cut_mark(cut: AnswerCut) -> &'static str {
    match cut {
        AnswerCut::ContextFull => {
            "answer cut: the model server's context filled up — compress (/compact) or give \
             the server a larger context"
        }
        _ => {
            "answer cut at the output limit — ask to continue, or raise maxOutputTokens in \
             models.json"
        }
    }
}

/// A compression's outcome: `context compressed: 12.0k → 3.1k tokens`, or its failure.
pub(super) fn compression_line(
    style: Style,
    ok: bool,
    detail: &str,
    (before, after): (u64, u64),
) -> String {
    if ok {
        style.dim(&format!(
            "context compressed: {} → {} tokens",
            tokens(before),
            tokens(after)
        ))
    } else {
        style.red(&format!(
            "context compression failed: {}",
            escape_controls(detail)
        ))
    }
}

/// The context figure of the last request, shown after the turn.
#[derive(Debug, Clone, Copy)]
pub(super) struct Usage {
    /// Tokens used.
    pub(super) used: u64,
    /// The model's window.
    pub(super) window: u64,
    /// `used / window`.
    pub(super) ratio: f64,
    /// Counted with the tokenizer (else an upper bound).
    pub(super) exact: bool,
    /// What the provider counted, when it said.
    pub(super) reported: Option<u64>,
    /// Of those, what came from the provider's prompt cache, when it said.
    pub(super) cached: Option<u64>,
}

impl Usage {
    /// `[context 2.7k / 128.0k tokens, 2.1% · provider counted 2.6k, 2.4k cached]`.
    pub(super) fn line(&self) -> String {
        let cached = self
            .cached
            .map(|c| format!(", {} cached", tokens(c)))
            .unwrap_or_default();
        let provider = self
            .reported
            .map(|r| format!(" · provider counted {}{cached}", tokens(r)))
            .unwrap_or_default();
        // Not exact: an upper bound, counted before the tokenizer was ready.
        let bound = if self.exact { "" } else { "≤ " };
        format!(
            "[context {bound}{} / {} tokens, {bound}{:.1}%{provider}]",
            tokens(self.used),
            tokens(self.window),
            self.ratio * 100.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Usage;

    #[test]
    fn the_usage_line_says_what_the_provider_counted_and_took_from_its_cache() {
        let usage = |reported, cached| Usage {
            used: 2_700,
            window: 128_000,
            ratio: 2_700.0 / 128_000.0,
            exact: true,
            reported,
            cached,
        };
        let cases = [
            (usage(None, None), "[context 2.7k / 128.0k tokens, 2.1%]"),
            (
                usage(Some(2_600), None),
                "[context 2.7k / 128.0k tokens, 2.1% · provider counted 2.6k]",
            ),
            (
                usage(Some(2_600), Some(2_400)),
                "[context 2.7k / 128.0k tokens, 2.1% · provider counted 2.6k, 2.4k cached]",
            ),
        ];
        for (usage, line) in cases {
            assert_eq!(usage.line(), line);
        }
    }
}
