use pulldown_cmark::{Event, Options, Parser};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::{Cancelled, bounded};
use crate::markdown::elements::{ELEMENTS, is_void};
use crate::markdown::limits::{MAX_DEPTH, MAX_FORMATTED_BYTES, MAX_SPECIALS};
use crate::markdown::raw_html::{Piece, pieces};
use crate::markdown::to_safe_html;

/// How deep the elements of `html` (as the sanitizer writes it: every element closed)
/// nest at most, and every element name met.
fn nesting(html: &str) -> (usize, Vec<String>) {
    let (mut depth, mut deepest, mut names) = (0usize, 0usize, Vec::new());
    for piece in pieces(html) {
        match piece {
            Piece::Start { name, .. } => {
                if !is_void(&name) {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                names.push(name);
            }
            Piece::End { .. } => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    (deepest, names)
}

fn events(markdown: &str) -> Vec<Event<'_>> {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    bounded(Parser::new_ext(markdown, options), &|| false).unwrap_or_default()
}

#[test]
fn raw_html_is_balanced_and_what_the_page_does_not_keep_is_text() {
    let cases = [
        // An HTML block's element holds the blocks after it until it is closed.
        (
            "<details>\n<summary>More</summary>\n\n- one\n\n</details>",
            "<details>\n<summary>More</summary>\n<ul>\n<li>one</li>\n</ul>\n</details>",
        ),
        // What a paragraph leaves open is closed where it ends.
        ("a <b>bold", "<p>a <b>bold</b></p>\n"),
        ("<div><span>x</div>", "<div><span>x</span></div>"),
        // An end tag that closes nothing is dropped.
        ("x </div> y", "<p>x  y</p>\n"),
        // Tags of elements the page does not keep are shown as text.
        (
            "use <T> or <select>",
            "<p>use &lt;T&gt; or &lt;select&gt;</p>\n",
        ),
        (
            "<script>alert(1)</script>",
            "&lt;script&gt;alert(1)&lt;/script&gt;",
        ),
        ("a <!-- note --> b", "<p>a  b</p>\n"),
        ("2 < 3", "<p>2 &lt; 3</p>\n"),
        (
            "<p title='a \"q\"' onclick=x>y</p>",
            "<p title=\"a &quot;q&quot;\">y</p>",
        ),
    ];
    for (markdown, html) in cases {
        assert_eq!(to_safe_html(markdown), html, "{markdown:?}");
    }
}

#[test]
fn nesting_past_the_cap_keeps_the_text_without_the_structure() {
    let shapes = [
        format!("{} deep text", ">".repeat(1000)),
        format!("{}deep text", "- ".repeat(1000)),
        format!("{}deep text", "1. ".repeat(1000)),
        format!("{}deep text", "<div>".repeat(1000)),
        format!("{}deep text{}", "<div>".repeat(1000), "</div>".repeat(1000)),
        format!("{}deep text", "*a **b ".repeat(1000)),
        format!("{}deep text{}", "[".repeat(1000), "](x)".repeat(1000)),
        format!("{}\n\ndeep text", "> - 1. <b>".repeat(500)),
    ];
    for markdown in shapes {
        let html = to_safe_html(&markdown);
        let (depth, _) = nesting(&html);
        assert!(depth <= MAX_DEPTH, "{depth} deep: {:?}", &markdown[..40]);
        assert!(html.contains("deep text"), "{:?}", &markdown[..40]);
    }
    // A raw tag past the cap is shown as text; a Markdown block loses its structure.
    let html = to_safe_html(&"<div>".repeat(MAX_DEPTH + 3));
    assert_eq!(html.matches("<div>").count(), MAX_DEPTH);
    assert_eq!(html.matches("&lt;div&gt;").count(), 3);
    let html = to_safe_html(&format!("{}> x", "> ".repeat(MAX_DEPTH + 3)));
    assert_eq!(html.matches("<blockquote>").count(), MAX_DEPTH);
    assert!(
        html.contains('x') && !html.contains("&gt;"),
        "the text stays, not the `>`"
    );
}

#[test]
fn nothing_of_the_input_reaches_the_html_as_markup_past_the_cap() {
    let attack = "<script>alert(1)</script><img src=x onerror=alert(2)>\
                  <a href=\"javascript:alert(3)\">x</a><iframe src=y></iframe>\
                  <svg onload=alert(4)><style>*{}</style>[y](javascript:alert(5))";
    for prefix in [">".repeat(500), "<div>".repeat(500), "- ".repeat(500)] {
        let html = to_safe_html(&format!("{prefix}{attack}\n\n{attack}"));
        for piece in pieces(&html) {
            if let Piece::Start {
                name, attributes, ..
            } = piece
            {
                assert!(ELEMENTS.contains(&name.as_str()), "<{name}> in {html}");
                for (attribute, value) in attributes {
                    assert!(!attribute.starts_with("on"), "{attribute} in {html}");
                    assert!(!value.contains("javascript:"), "{value} in {html}");
                }
            }
        }
        for markup in ["<script", "<iframe", "<svg", "<style"] {
            assert!(!html.contains(markup), "{markup} in {html}");
        }
        assert!(
            html.contains("&lt;script&gt;alert(1)"),
            "shown as text: {html}"
        );
    }
}

#[test]
fn random_markup_never_nests_past_the_cap() {
    // Mostly what opens an element, some of what closes one (what makes a parser read
    // the rest as text — `<textarea>`, `<!--` — would end the test early).
    const OPENING: &[&str] = &[
        "> ",
        "- ",
        "1. ",
        "<div>",
        "<b a=1>",
        "<b a=2>",
        "<i>",
        "<table>",
        "<td>",
        "<tr>",
        "<p>",
        "<li>",
        "<ul>",
        "<span>",
        "<a href=x>",
        "<details>",
        "<summary>",
        "<blockquote>",
        "<h1>",
        "<dl>",
        "<dd>",
        "<dt>",
        "<center>",
        "<ruby>",
        "<rt>",
        "<caption>",
        "<colgroup>",
        "<em>",
        "*",
        "**",
        "[",
        "<pre>",
    ];
    const OTHER: &[&str] = &[
        ">",
        "  ",
        "\n",
        "\n\n",
        "</div>",
        "</b>",
        "</td>",
        "</table>",
        "</p>",
        "</ul>",
        "_",
        "[a](b)",
        "`c`",
        "|x|y|\n|-|-|\n",
        "</span>",
        "text ",
        "</a>",
        "-->",
        "&amp;",
        "<button>",
        "<form>",
        "<nobr>",
        "<font>",
        "</p></div>",
        "](y)",
        "<T>",
        "</i>",
    ];
    let mut rng = StdRng::seed_from_u64(39);
    let mut deepest = 0;
    for _ in 0..16 {
        let markdown: String = (0..6000)
            .map(|_| {
                let from = if rng.random_bool(0.7) { OPENING } else { OTHER };
                from[rng.random_range(0..from.len())]
            })
            .collect();
        let html = to_safe_html(&markdown);
        let (depth, names) = nesting(&html);
        deepest = deepest.max(depth);
        // The parser may open again formatting elements a block closed (each once).
        assert!(depth <= 2 * MAX_DEPTH, "{depth} deep for {markdown:?}");
        assert!(names.iter().all(|name| ELEMENTS.contains(&name.as_str())));
    }
    assert!(deepest >= MAX_DEPTH / 2, "the inputs nest deep ({deepest})");
}

#[test]
fn long_runs_of_escaped_characters_are_split_or_dropped() {
    let text = "&".repeat(10 * MAX_SPECIALS);
    let out = events(&text);
    let splits = out
        .iter()
        .filter(|e| matches!(e, Event::InlineHtml(h) if h.as_ref() == "<!---->"))
        .count();
    assert_eq!(splits, 9);
    let html = to_safe_html(&text);
    assert_eq!(
        html.matches("&amp;").count(),
        10 * MAX_SPECIALS,
        "the text is whole"
    );
    // A link or an image whose address holds too many is shown as its text.
    let long = "&".repeat(MAX_SPECIALS + 1);
    let html = to_safe_html(&format!("[the label](x?{long}) ![the alt](y?{long})"));
    assert!(!html.contains("<a") && !html.contains("<img"), "{html}");
    assert!(html.contains("the label") && html.contains("the alt"));
    let html = to_safe_html(&format!("<span title=\"{long}\">kept</span>"));
    assert_eq!(html, "<p><span>kept</span></p>\n");
}

#[test]
fn past_the_size_cap_the_answer_is_plain_text() {
    let line = "**bold** <b>x</b> & more\n";
    let markdown = line.repeat(MAX_FORMATTED_BYTES / line.len() + 10);
    let html = to_safe_html(&markdown);
    let (head, tail) = html
        .split_once("<pre class=\"md-rest\">")
        .expect("a plain rest");
    assert!(head.contains("<strong>bold</strong>"));
    assert!(head.contains("plain text"));
    assert!(tail.contains("**bold** &lt;b&gt;x&lt;/b&gt; &amp; more"));
    assert!(!tail.contains("<b>") && !tail.contains("<strong>"));
}

#[test]
fn rendering_stops_when_asked() {
    let options = Options::empty();
    let stopped = bounded(Parser::new_ext("a *b* c", options), &|| true);
    assert_eq!(stopped.err(), Some(Cancelled));
    assert_eq!(
        crate::markdown::render("a", &|| true).err(),
        Some(Cancelled)
    );
}
