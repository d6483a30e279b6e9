//! Answers as HTML: Markdown rendered with pulldown-cmark, then cleaned by ammonia's
//! allow-list, so nothing a model or a tool wrote can add a script, an event handler
//! or a `javascript:` link to the page. A code block keeps its language as a
//! `language-NAME` class (letters, digits, `+`, `-`, `_`, `#` only), for the page's
//! highlighter and label. An image the page cannot show becomes a link
//! ([`crate::images`]).
//!
//! The page renders a streaming answer here too, block by block ([`close_open_inline`]
//! closes what the last line left open), so what it shows while the answer streams is
//! what it shows once it is stored.

use std::borrow::Cow;

use pulldown_cmark::{Options, Parser, html};

use crate::images;

/// `markdown` as safe HTML.
pub(crate) fn to_safe_html(markdown: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut rendered = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut rendered, Parser::new_ext(markdown, options));
    let rendered = images::images_as_links(&rendered);
    ammonia::Builder::default()
        .link_rel(Some("noopener noreferrer nofollow"))
        // Pictures in `data:` URLs (see crate::images); no other `data:` URL stays.
        .add_url_schemes(["data"])
        .add_tag_attributes("code", &["class"])
        // Task lists: pulldown-cmark's `<input type="checkbox" disabled>` (no form can
        // hold it, and no other input type stays).
        .add_tags(["input"])
        .add_tag_attributes("input", &["type", "checked", "disabled"])
        .attribute_filter(|element, attribute, value| {
            let kept = match (element, attribute) {
                ("code", "class") => is_language_class(value),
                ("input", "type") => value == "checkbox",
                ("img", "src") => images::page_can_show(value),
                (_, "href" | "src" | "cite") => !images::is_data_url(value),
                _ => true,
            };
            kept.then_some(Cow::Borrowed(value))
        })
        .clean(&rendered)
        .to_string()
}

fn is_language_class(class: &str) -> bool {
    class.strip_prefix("language-").is_some_and(|name| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_' | '#'))
    })
}

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
    use super::{close_open_inline, to_safe_html};

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

    #[test]
    fn a_code_block_keeps_its_language_and_a_task_list_its_checkboxes_and_nothing_else() {
        let html = to_safe_html("```rust\nfn main() {}\n```");
        assert!(html.contains("<code class=\"language-rust\">"), "{html}");
        let html = to_safe_html("<code class=\"x\" onclick=\"y()\">z</code>");
        assert!(
            !html.contains("class") && !html.contains("onclick"),
            "{html}"
        );
        let html = to_safe_html("- [x] done\n- [ ] open");
        assert_eq!(html.matches("type=\"checkbox\"").count(), 2, "{html}");
        let html = to_safe_html("<input type=\"text\" value=\"x\" onfocus=\"y()\">");
        assert!(
            !html.contains("text") && !html.contains("onfocus") && !html.contains("value"),
            "{html}"
        );
        let html = to_safe_html("```a\"onload=b\nx\n```");
        assert!(!html.contains("onload=b\""), "{html}");
    }

    #[test]
    fn markdown_renders_and_markup_from_the_model_stays_inert() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "**bold** and `code`",
                &["<strong>bold</strong>", "<code>code</code>"],
                &[],
            ),
            (
                "```rust\nfn main() {}\n```",
                &["<pre><code class=\"language-rust\">", "fn main() {}"],
                &[],
            ),
            (
                "<img src=x onerror=alert(1)>",
                &[],
                &["onerror", "alert(1)\"", "<script"],
            ),
            (
                "<script>alert(1)</script>",
                &[],
                &["<script", "alert(1)</script>"],
            ),
            ("[click](javascript:alert(1))", &["click"], &["javascript:"]),
            (
                "<a href=\"https://example.com\" onclick=\"steal()\">x</a>",
                &["https://example.com", "noopener"],
                &["onclick"],
            ),
            (
                "<iframe src=\"https://example.com\"></iframe>",
                &[],
                &["<iframe"],
            ),
            (
                "![the chart](https://example.com/chart.png)",
                &[
                    "<a href=\"https://example.com/chart.png\" rel=\"noopener noreferrer nofollow\">the chart</a>",
                ],
                &["<img"],
            ),
            (
                "[![build](https://ci.example/badge.svg)](https://ci.example)",
                &["<a href=\"https://ci.example\" rel=\"noopener noreferrer nofollow\">build</a>"],
                &["<img", "badge.svg"],
            ),
            (
                "<img src=\"https://example.com/t.gif\" alt=\"<b>x</b>\" onerror=alert(1)>",
                &["&lt;b&gt;x&lt;/b&gt;</a>"],
                &["<img", "<b>", "onerror"],
            ),
            (
                "![dot](data:image/png;base64,iVBORw0KGgo=)",
                &["<img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"dot\">"],
                &["<a"],
            ),
            (
                "![page](data:text/html;base64,PHNjcmlwdD4=) [x](data:text/html,y)",
                &["page</a>"],
                &["<img", "data:"],
            ),
        ];
        for (markdown, present, absent) in cases {
            let html = to_safe_html(markdown);
            for p in *present {
                assert!(html.contains(p), "{markdown:?} → {html:?} lacks {p:?}");
            }
            for a in *absent {
                assert!(!html.contains(a), "{markdown:?} → {html:?} has {a:?}");
            }
        }
    }
}
