//! The end of an answer still streaming, made to render as it will once complete.

use std::borrow::Cow;

/// The end of a streaming answer with the inline markup its last paragraph opened and
/// did not close yet (`**`, `~~`, `` ` ``) closed, so that `**bo` shows as bold `bo`
/// rather than as two stars; nothing inside an open code fence is touched.
pub(crate) fn close_open_inline(markdown: &str) -> Cow<'_, str> {
    let mut in_fence = false;
    let mut paragraph_start = 0;
    let mut offset = 0;
    for line in markdown.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            paragraph_start = offset + line.len();
        } else if line.trim().is_empty() {
            paragraph_start = offset + line.len();
        }
        offset += line.len();
    }
    if in_fence {
        return Cow::Borrowed(markdown);
    }
    let closing = closers(&markdown[paragraph_start..]);
    if closing.is_empty() {
        return Cow::Borrowed(markdown);
    }
    // A marker just opened with nothing after it yet goes; what is still open is closed.
    let trimmed = markdown.trim_end_matches([' ', '*', '~']);
    let closing = closers(trimmed.get(paragraph_start..).unwrap_or(""));
    Cow::Owned(format!("{trimmed}{closing}"))
}

/// What closes the inline markup `paragraph` leaves open, innermost first.
fn closers(paragraph: &str) -> String {
    let (mut code, mut strong, mut strike) = (false, false, false);
    let mut rest = paragraph;
    while let Some(c) = rest.chars().next() {
        if c == '`' {
            code = !code;
        } else if !code && rest.starts_with("**") {
            strong = !strong;
            rest = &rest[2..];
            continue;
        } else if !code && rest.starts_with("~~") {
            strike = !strike;
            rest = &rest[2..];
            continue;
        }
        rest = &rest[c.len_utf8()..];
    }
    let mut closing = String::new();
    if code {
        closing.push('`');
    }
    if strike {
        closing.push_str("~~");
    }
    if strong {
        closing.push_str("**");
    }
    closing
}

#[cfg(test)]
mod tests {
    use super::close_open_inline;

    #[test]
    fn what_a_streaming_paragraph_opened_is_closed() {
        let cases = [
            ("Here is **bo", "Here is **bo**"),
            ("Here is **bold** and `co", "Here is **bold** and `co`"),
            ("done **bold**.", "done **bold**."),
            ("a ~~gone", "a ~~gone~~"),
            ("**", ""),
            ("Here is **", "Here is"),
            ("a `x` **", "a `x`"),
            ("first **open\n\nsecond", "first **open\n\nsecond"),
            ("```rust\nlet x = **y", "```rust\nlet x = **y"),
            ("```\ncode\n```\nthen **b", "```\ncode\n```\nthen **b**"),
            ("a `**` b", "a `**` b"),
        ];
        for (streamed, shown) in cases {
            assert_eq!(close_open_inline(streamed), shown, "{streamed:?}");
        }
    }
}
