//! Answers as HTML: Markdown rendered with pulldown-cmark, then cleaned by ammonia's
//! allow-list, so nothing a model or a tool wrote can add a script, an event handler
//! or a `javascript:` link to the page. A code block keeps its language as a
//! `language-NAME` class (letters, digits, `+`, `-`, `_`, `#` only), for the page's
//! highlighter and label. An image the page cannot show becomes a link
//! ([`crate::images`]).
//!
//! Rendering is linear in the answer's size whatever it holds ([`limits`] says how):
//! between the parser and the sanitizer, [`bounded`] caps how deep elements nest and
//! writes raw HTML again in a plain form; past [`limits::MAX_FORMATTED_BYTES`] an
//! answer is shown as plain text. The routes run it off the async threads
//! ([`crate::render_pool`]).
//!
//! The page renders a streaming answer here too, block by block
//! ([`open_end::close_open_inline`] closes what the last line left open), so what it
//! shows while the answer streams is what it shows once it is stored.

mod bounded;
mod elements;
pub(crate) mod limits;
mod open_end;
mod raw_html;

use std::borrow::Cow;

use pulldown_cmark::{Event, Options, Parser, html};

pub(crate) use bounded::Cancelled;
pub(crate) use open_end::close_open_inline;

use crate::images;

/// `markdown` as safe HTML.
#[cfg(test)]
pub(crate) fn to_safe_html(markdown: &str) -> String {
    render(markdown, &|| false).unwrap_or_default()
}

/// `markdown` as safe HTML; [`Cancelled`] as soon as `cancelled` says so (checked
/// between steps and every few thousand Markdown events).
pub(crate) fn render(markdown: &str, cancelled: &dyn Fn() -> bool) -> Result<String, Cancelled> {
    let (formatted, rest) = limits::split_formatted(markdown, limits::MAX_FORMATTED_BYTES);
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = bounded::bounded(Parser::new_ext(formatted, options), cancelled)?;
    let mut rendered = String::with_capacity(formatted.len() * 3 / 2);
    html::push_html(&mut rendered, events.into_iter());
    let rendered = images::images_as_links(&rendered);
    if cancelled() {
        return Err(Cancelled);
    }
    let mut safe = sanitizer().clean(&rendered).to_string();
    if !rest.is_empty() {
        plain_rest(&mut safe, rest);
    }
    Ok(safe)
}

/// The sanitizer: the kept elements ([`elements::ELEMENTS`]) and their attributes.
fn sanitizer() -> ammonia::Builder<'static> {
    let mut builder = ammonia::Builder::default();
    builder
        .tags(elements::ELEMENTS.iter().copied().collect())
        .link_rel(Some("noopener noreferrer nofollow"))
        // Pictures in `data:` URLs (see crate::images); no other `data:` URL stays.
        .add_url_schemes(["data"])
        .add_tag_attributes("code", &["class"])
        // Task lists: pulldown-cmark's `<input type="checkbox" disabled>` (no form can
        // hold it, and no other input type stays).
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
        });
    builder
}

/// Appends the part of an answer past [`limits::MAX_FORMATTED_BYTES`]: a line that
/// says so, then the text as it is (escaped by the HTML writer: text only, no markup).
fn plain_rest(html: &mut String, rest: &str) {
    html.push_str(&format!(
        "<p class=\"md-rest-note\">The answer goes on as plain text: only its first {} KB \
         are formatted.</p>\n<pre class=\"md-rest\">",
        limits::MAX_FORMATTED_BYTES / 1024
    ));
    html::push_html(html, std::iter::once(Event::Text(rest.into())));
    html.push_str("</pre>\n");
}

fn is_language_class(class: &str) -> bool {
    class.strip_prefix("language-").is_some_and(|name| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '_' | '#'))
    })
}

#[cfg(test)]
mod tests {
    use super::to_safe_html;

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
