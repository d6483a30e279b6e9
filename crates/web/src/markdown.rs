//! Answers as HTML: Markdown rendered with pulldown-cmark, then cleaned by ammonia's
//! allow-list, so nothing a model or a tool wrote can add a script, an event handler
//! or a `javascript:` link to the page.

use pulldown_cmark::{Options, Parser, html};

/// `markdown` as safe HTML.
pub(crate) fn to_safe_html(markdown: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut rendered = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut rendered, Parser::new_ext(markdown, options));
    ammonia::Builder::default()
        .link_rel(Some("noopener noreferrer nofollow"))
        .clean(&rendered)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::to_safe_html;

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
                &["<pre><code", "fn main() {}"],
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
