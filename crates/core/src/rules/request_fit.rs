//! Whether a request can fit the model's context window at all, and what to say when
//! it cannot: such a request is refused before it is sent.

/// How large a request would be, and what of it is the running turn's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestSize {
    /// Tokens of the whole request (system prompt, tools, history, the turn's rows).
    pub request_tokens: u64,
    /// Tokens of the running turn's own rows (its message, tool calls and results):
    /// what no compression and no leaving out of older turns can shrink.
    pub turn_tokens: u64,
    /// The model's context window in tokens.
    pub window: u64,
    /// Tokens of the turn's user message.
    pub message_tokens: u64,
    /// Bytes of the turn's user message.
    pub message_bytes: u64,
}

/// `None` unless the running turn alone exceeds the window — then no request of it
/// can fit, and the error the turn fails with says what size, what window, and what
/// to do. (A system prompt and tools that fill the window alone are only warned about:
/// a `contextWindow` set too small should not stop every turn.)
#[must_use]
pub fn refuse_oversized(size: RequestSize) -> Option<String> {
    if size.turn_tokens <= size.window {
        return None;
    }
    let message = format!(
        "this turn is {} tokens, more than the model's {}-token context window, so its \
         request ({} tokens) was not sent: its message alone is {} tokens ({}). Send a \
         shorter message (save a long text as a file in the workspace and ask for it to \
         be read in parts), or choose a model with a larger contextWindow in models.json",
        size.turn_tokens,
        size.window,
        size.request_tokens,
        size.message_tokens,
        human_bytes(size.message_bytes)
    );
    Some(message)
}

/// `512 bytes`, `12.3 KB`, `5.0 MB` (powers of 1000, as file managers show them).
#[must_use]
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 3] = ["KB", "MB", "GB"];
    if bytes < 1000 {
        return format!("{bytes} bytes");
    }
    // Precision is irrelevant here: an approximate size for people.
    #[allow(clippy::cast_precision_loss)]
    let mut value = bytes as f64 / 1000.0;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        for (bytes, text) in [
            (0, "0 bytes"),
            (999, "999 bytes"),
            (1000, "1.0 KB"),
            (12_345, "12.3 KB"),
            (5_000_000, "5.0 MB"),
            (5_242_880, "5.2 MB"),
            (3_000_000_000, "3.0 GB"),
            (7_000_000_000_000, "7000.0 GB"),
        ] {
            assert_eq!(human_bytes(bytes), text, "{bytes}");
        }
    }

    #[test]
    fn only_a_turn_larger_than_the_window_is_refused_and_the_error_says_what_to_do() {
        let size = |request_tokens, turn_tokens| RequestSize {
            request_tokens,
            turn_tokens,
            window: 128_000,
            message_tokens: 1_250_000,
            message_bytes: 5_000_000,
        };
        for (request, turn, refused) in [
            (10, 0, false),
            (128_000, 127_000, false),
            (128_000, 128_000, false),
            // The fixed prompt fills the window: warned about elsewhere, still sent.
            (200_000, 1_000, false),
            (128_100, 128_001, true),
            (1_251_000, 1_250_500, true),
        ] {
            assert_eq!(
                refuse_oversized(size(request, turn)).is_some(),
                refused,
                "{request} {turn}"
            );
        }
        let error = refuse_oversized(size(1_251_000, 1_250_500)).unwrap();
        for part in [
            "this turn is 1250500 tokens",
            "128000-token context window",
            "request (1251000 tokens) was not sent",
            "1250000 tokens (5.0 MB)",
            "shorter message",
            "contextWindow in models.json",
        ] {
            assert!(error.contains(part), "{part}: {error}");
        }
    }
}
