//! How many tokens an answer may have: the request's `max_tokens`.

/// The `max_tokens` of a request whose prompt is `prompt_tokens` of a `window`-token
/// context: the model's own limit (models.json `maxOutputTokens`, `None`: none), never
/// more than what the prompt leaves of the window, and at least 1 (a request whose
/// prompt fills the window still gets an answer the server can end at once, rather
/// than an unbounded one).
#[must_use]
pub fn output_bound(limit: Option<u32>, window: u64, prompt_tokens: u64) -> u32 {
    let left = u32::try_from(window.saturating_sub(prompt_tokens)).unwrap_or(u32::MAX);
    limit.map_or(left, |limit| limit.min(left)).max(1)
}

#[cfg(test)]
mod tests {
    use super::output_bound;

    #[test]
    fn the_limit_within_what_the_window_leaves() {
        let cases = [
            (Some(4096), 128_000, 1_000, 4096),
            (Some(4096), 8_192, 6_000, 2192),
            (None, 8_192, 6_000, 2192),
            (Some(100), 8_192, 8_192, 1),
            (Some(100), 8_192, 9_000, 1),
            (Some(0), 8_192, 10, 1),
            (None, u64::MAX, 0, u32::MAX),
        ];
        for (limit, window, prompt, expected) in cases {
            assert_eq!(
                output_bound(limit, window, prompt),
                expected,
                "{limit:?} {window} {prompt}"
            );
        }
    }
}
