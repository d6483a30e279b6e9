//! Char-safe truncation of text sent to the model or stored.
//!
//! Every length here is counted in Unicode scalar values (`char`s), except in
//! [`cap_bytes`], which counts bytes. No function ever cuts inside a UTF-8 sequence; a
//! multi-scalar grapheme (an emoji with a skin-tone modifier, a flag) may be split
//! between its scalars. Text that already fits is returned borrowed, unchanged.

use std::borrow::Cow;

/// The marker [`truncate_tool_result`] puts between the kept head and tail, saying how
/// many characters were left out: `... [truncated: N characters left out]`.
#[must_use]
pub fn truncation_marker(omitted: usize) -> String {
    format!("... [truncated: {omitted} characters left out]")
}

/// Byte offset where the char with index `n` starts (`text.len()` past the end).
fn byte_offset_of_char(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(at, _)| at)
}

/// The number of chars in `text` when it is more than `max_chars`, else `None`.
fn char_count_over(text: &str, max_chars: usize) -> Option<usize> {
    if text.len() <= max_chars {
        // A char is at least one byte, so the text fits.
        return None;
    }
    let count = text.chars().count();
    (count > max_chars).then_some(count)
}

/// Cuts a tool result sent to the model to `max_chars` chars (the configured
/// `toolResultMaxLength`, 100..=10000), keeping the head and the tail so the last lines
/// (where errors usually are) stay visible.
///
/// When `text` has more than `max_chars` chars the result is
/// `head + truncation_marker(left out) + "\n" + tail`, where the tail is the last
/// `max_chars * 3 / 10` chars and the head the first `max_chars - tail` chars, so the
/// kept text is exactly `max_chars` chars.
///
/// ```
/// use smallebot_core::rules::truncation::truncate_tool_result;
/// let long = "a".repeat(80) + &"z".repeat(80);
/// let cut = truncate_tool_result(&long, 100);
/// assert_eq!(
///     cut,
///     format!("{}... [truncated: 60 characters left out]\n{}", "a".repeat(70), "z".repeat(30))
/// );
/// ```
#[must_use]
pub fn truncate_tool_result(text: &str, max_chars: usize) -> Cow<'_, str> {
    let Some(total) = char_count_over(text, max_chars) else {
        return Cow::Borrowed(text);
    };
    let tail_chars = max_chars * 3 / 10;
    let head_chars = max_chars - tail_chars;
    let head_end = byte_offset_of_char(text, head_chars);
    let tail_start = byte_offset_of_char(text, total - tail_chars);
    Cow::Owned(format!(
        "{}{}\n{}",
        &text[..head_end],
        truncation_marker(total - max_chars),
        &text[tail_start..]
    ))
}

/// Keeps the first `max_chars` chars of `text` and appends `marker` when anything was
/// cut (task tool history uses `...[truncated]` at 200, search snippets 300).
///
/// ```
/// use smallebot_core::rules::truncation::truncate_with_marker;
/// assert_eq!(truncate_with_marker("héllo wörld", 5, "…"), "héllo…");
/// assert_eq!(truncate_with_marker("short", 5, "…"), "short");
/// ```
#[must_use]
pub fn truncate_with_marker<'a>(text: &'a str, max_chars: usize, marker: &str) -> Cow<'a, str> {
    if char_count_over(text, max_chars).is_none() {
        return Cow::Borrowed(text);
    }
    let head_end = byte_offset_of_char(text, max_chars);
    Cow::Owned(format!("{}{marker}", &text[..head_end]))
}

/// Caps long command output at `max_chars` kept chars: the first half and the last
/// half, joined by a line `\n... [N characters omitted] ...\n` (N counted in chars).
///
/// ```
/// use smallebot_core::rules::truncation::cap_head_tail;
/// assert_eq!(cap_head_tail("abcdefghij", 4), "ab\n... [6 characters omitted] ...\nij");
/// ```
#[must_use]
pub fn cap_head_tail(text: &str, max_chars: usize) -> Cow<'_, str> {
    let Some(total) = char_count_over(text, max_chars) else {
        return Cow::Borrowed(text);
    };
    let tail_chars = max_chars / 2;
    let head_chars = max_chars - tail_chars;
    let omitted = total - max_chars;
    let head_end = byte_offset_of_char(text, head_chars);
    let tail_start = byte_offset_of_char(text, total - tail_chars);
    Cow::Owned(format!(
        "{}\n... [{omitted} characters omitted] ...\n{}",
        &text[..head_end],
        &text[tail_start..]
    ))
}

/// Cuts `text` at the last char boundary at or before `max_bytes` and appends `marker`
/// (stored tool results are capped at 1 MiB). The marker comes on top of `max_bytes`.
///
/// ```
/// use smallebot_core::rules::truncation::cap_bytes;
/// // "é" is two bytes: a cut at byte 2 would split it, so the cut moves back to 1.
/// assert_eq!(cap_bytes("aé", 2, "[cut]"), "a[cut]");
/// ```
#[must_use]
pub fn cap_bytes<'a>(text: &'a str, max_bytes: usize, marker: &str) -> Cow<'a, str> {
    if text.len() <= max_bytes {
        return Cow::Borrowed(text);
    }
    let cut = text.floor_char_boundary(max_bytes);
    Cow::Owned(format!("{}{marker}", &text[..cut]))
}

/// Stored tool results are capped at 1 MiB (both stores).
pub const MAX_STORED_RESULT_BYTES: usize = 1024 * 1024;

/// Appended to a stored result cut at [`MAX_STORED_RESULT_BYTES`]: how much of it was
/// kept and left out.
#[must_use]
pub fn stored_result_marker(kept: usize, total: usize) -> String {
    format!(
        "\n... [result cut when stored: the first {kept} of its {total} bytes are kept, {} \
         left out]",
        total - kept
    )
}

/// A tool result as it is stored: at most [`MAX_STORED_RESULT_BYTES`] bytes (cut on a
/// character boundary) plus [`stored_result_marker`] when cut.
#[must_use]
pub fn cap_stored_result(text: &str) -> Cow<'_, str> {
    if text.len() <= MAX_STORED_RESULT_BYTES {
        return Cow::Borrowed(text);
    }
    let kept = text.floor_char_boundary(MAX_STORED_RESULT_BYTES);
    Cow::Owned(format!(
        "{}{}",
        &text[..kept],
        stored_result_marker(kept, text.len())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(text: &str) -> usize {
        text.chars().count()
    }

    /// Splits a tool-result output back into (head, tail) around the marker.
    fn split_result(out: &str) -> (&str, &str) {
        let (head, rest) = out.split_once("... [truncated: ").unwrap();
        let (_, tail) = rest.split_once(" characters left out]\n").unwrap();
        (head, tail)
    }

    #[test]
    fn tool_result_keeps_head_and_tail_exactly_max_chars() {
        // (text, max, expected head chars, expected tail chars)
        let ascii = "x".repeat(20_000);
        let cjk = "漢字かな交じり文".repeat(2_000);
        let emoji = "👍🏽🇩🇪😀".repeat(3_000);
        let mixed = "aé漢😀".repeat(5_000);
        let cases: &[(&str, usize, usize, usize)] = &[
            (&ascii, 100, 70, 30),
            (&ascii, 500, 350, 150),
            (&ascii, 10_000, 7_000, 3_000),
            (&cjk, 100, 70, 30),
            (&cjk, 500, 350, 150),
            (&cjk, 10_000, 7_000, 3_000),
            (&emoji, 100, 70, 30),
            (&emoji, 500, 350, 150),
            (&emoji, 10_000, 7_000, 3_000),
            (&mixed, 101, 71, 30),
            (&mixed, 10_000, 7_000, 3_000),
        ];
        for &(text, max, head, tail) in cases {
            let out = truncate_tool_result(text, max);
            let (h, t) = split_result(&out);
            assert_eq!((chars(h), chars(t)), (head, tail), "max {max}");
            let omitted = chars(text) - max;
            assert!(
                out.contains(&truncation_marker(omitted)),
                "max {max}: the marker says how much was left out"
            );
            assert!(text.starts_with(h) && text.ends_with(t), "max {max}");
        }
    }

    #[test]
    fn tool_result_unchanged_when_it_fits() {
        let cases: &[(&str, usize)] = &[
            ("", 100),
            ("short", 100),
            (&"漢".repeat(100), 100), // 300 bytes but 100 chars: fits
            (&"😀".repeat(500), 500),
        ];
        for &(text, max) in cases {
            assert!(matches!(truncate_tool_result(text, max), Cow::Borrowed(t) if t == text));
        }
    }

    #[test]
    fn tool_result_keeps_the_last_error_line() {
        let log = format!("{}error: boom at line 3\n", "ok\n".repeat(1000));
        let out = truncate_tool_result(&log, 100);
        assert!(out.ends_with("error: boom at line 3\n"));
        assert!(out.starts_with("ok\nok\n"));
    }

    #[test]
    fn truncate_with_marker_cases() {
        // (text, max, marker, expected)
        let cases: &[(&str, usize, &str, &str)] = &[
            ("hello world", 5, "...[truncated]", "hello...[truncated]"),
            ("hello", 5, "...[truncated]", "hello"),
            ("", 0, "…", ""),
            ("abc", 0, "…", "…"),
            ("漢字かな交じり", 2, "…", "漢字…"),
            ("😀😁😂", 1, "", "😀"),
            ("👍🏽x", 1, "|", "👍|"), // modifier is its own scalar
        ];
        for &(text, max, marker, expected) in cases {
            assert_eq!(truncate_with_marker(text, max, marker), expected, "{text}");
        }
        let long = "é".repeat(1_000);
        assert_eq!(chars(&truncate_with_marker(&long, 300, "")), 300);
    }

    #[test]
    fn cap_head_tail_cases() {
        // (text, max, expected)
        let cases: &[(&str, usize, &str)] = &[
            ("abcdef", 6, "abcdef"),
            ("abcdefg", 6, "abc\n... [1 characters omitted] ...\nefg"),
            ("abcdefg", 5, "abc\n... [2 characters omitted] ...\nfg"),
            (
                "漢字かな交じり文",
                4,
                "漢字\n... [4 characters omitted] ...\nり文",
            ),
            ("😀😁😂🤣", 2, "😀\n... [2 characters omitted] ...\n🤣"),
        ];
        for &(text, max, expected) in cases {
            assert_eq!(cap_head_tail(text, max), expected, "{text}");
        }
        let out = "漢".repeat(40_000);
        let capped = cap_head_tail(&out, 30_000);
        assert!(capped.contains("[10000 characters omitted]"));
        let kept = chars(&capped) - chars("\n... [10000 characters omitted] ...\n");
        assert_eq!(kept, 30_000);
    }

    #[test]
    fn cap_bytes_cases() {
        // (text, max bytes, expected)
        let cases: &[(&str, usize, &str)] = &[
            ("hello", 10, "hello"),
            ("hello", 5, "hello"),
            ("hello", 3, "hel[cut]"),
            ("aé", 2, "a[cut]"),
            ("漢字", 4, "漢[cut]"), // 漢 is 3 bytes, 字 would end at 6
            ("漢字", 2, "[cut]"),
            ("😀", 3, "[cut]"),
            ("a😀", 5, "a😀"),
        ];
        for &(text, max, expected) in cases {
            assert_eq!(cap_bytes(text, max, "[cut]"), expected, "{text} at {max}");
        }
        let big = "ü".repeat(1 << 20); // 2 MiB
        let capped = cap_bytes(&big, 1 << 20, "");
        assert_eq!(capped.len(), 1 << 20);
    }

    #[test]
    fn stored_results_are_capped_on_a_char_boundary() {
        assert_eq!(cap_stored_result("short"), "short");
        // (text, expected marker)
        let cases = [
            (
                "é".repeat(MAX_STORED_RESULT_BYTES), // 2 bytes each
                stored_result_marker(MAX_STORED_RESULT_BYTES, 2 * MAX_STORED_RESULT_BYTES),
            ),
            (
                format!("a{}", "é".repeat(MAX_STORED_RESULT_BYTES / 2)), // the cut moves back
                stored_result_marker(MAX_STORED_RESULT_BYTES - 1, MAX_STORED_RESULT_BYTES + 1),
            ),
        ];
        for (big, marker) in cases {
            let capped = cap_stored_result(&big);
            assert!(capped.ends_with(&marker), "{marker}");
            assert!(big.starts_with(&capped[..capped.len() - marker.len()]));
        }
        assert!(
            stored_result_marker(10, 25)
                .contains("the first 10 of its 25 bytes are kept, 15 left out")
        );
    }
}
