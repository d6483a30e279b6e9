//! Images in answers. The page's policy (CSP `img-src 'self' data:`) blocks every
//! remote image, and this server serves no image an answer could mean, so an `<img>`
//! would only show a broken icon (or, without the policy, tell a third party who reads
//! the answer). Only a self-contained picture is kept — a `data:` URL of a raster
//! image — and every other image, from Markdown (`![alt](url)`) or raw HTML, becomes a
//! link to its source labelled with its alt text (inside a link: its alt text only).
//!
//! This runs on the HTML rendered from the Markdown, before the sanitizer, which stays
//! the one guard: what this writes is cleaned like everything else, and the sanitizer
//! also drops any image source [`page_can_show`] refuses.

use std::borrow::Cow;

/// The `data:` image types kept as pictures (raster: no script, no fetch).
const DATA_IMAGE_TYPES: [&str; 5] = ["png", "jpeg", "gif", "webp", "avif"];

/// Whether the page shows an image from `src`: a `data:` URL of a raster image.
pub(crate) fn page_can_show(src: &str) -> bool {
    // (a browser ignores tabs and line breaks in a URL, and spaces around it)
    let src: String = src
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let src = src.trim_matches(|c: char| c <= ' ').to_ascii_lowercase();
    let Some(media) = src.strip_prefix("data:image/") else {
        return false;
    };
    let kind = media.split([';', ',']).next().unwrap_or("");
    DATA_IMAGE_TYPES.contains(&kind) && media.len() > kind.len()
}

/// Whether `url` is a `data:` URL (kept only as an image's source).
pub(crate) fn is_data_url(url: &str) -> bool {
    let url: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    url.trim_start_matches(|c: char| c <= ' ')
        .get(..5)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("data:"))
}

/// `html` with each `<img>` the page cannot show replaced by a link to its source
/// labelled with its alt text (or the source, without one); inside a link or without a
/// source, by its alt text alone.
pub(crate) fn images_as_links(html: &str) -> Cow<'_, str> {
    if !contains_ignore_case(html, "<img") {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len());
    let mut links = 0usize; // anchors open at this point
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let tag = &rest[at..];
        let name = tag_name(tag);
        if name.eq_ignore_ascii_case("a") {
            links += 1;
        } else if name.eq_ignore_ascii_case("/a") {
            links = links.saturating_sub(1);
        } else if name.eq_ignore_ascii_case("img") {
            let (end, attributes) = attributes(tag);
            let value = |wanted: &str| {
                attributes
                    .iter()
                    .find(|(name, _)| name.eq_ignore_ascii_case(wanted))
                    .map(|(_, value)| *value)
            };
            let src = value("src").unwrap_or("");
            if !page_can_show(src) {
                let alt = value("alt").unwrap_or("").trim();
                let label = if alt.is_empty() { src } else { alt };
                if links > 0 || src.trim().is_empty() {
                    out.push_str(&as_text(alt));
                } else {
                    let href = src.replace('"', "&quot;");
                    out.push_str(&format!("<a href=\"{href}\">{}</a>", as_text(label)));
                }
                rest = &tag[end..];
                continue;
            }
        }
        // Not rewritten: the `<` and on.
        out.push('<');
        rest = &tag[1..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

fn contains_ignore_case(text: &str, needle: &str) -> bool {
    text.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// An attribute's value as text (its entities still read as entities).
fn as_text(value: &str) -> String {
    value.replace('<', "&lt;")
}

/// The name of the tag `tag` (which starts with `<`) opens or closes (`/a` for `</a>`).
fn tag_name(tag: &str) -> &str {
    let body = &tag[1..];
    let start = usize::from(body.starts_with('/'));
    let end = body[start..]
        .find(|c: char| !c.is_ascii_alphanumeric())
        .map_or(body.len(), |n| n + start);
    &body[..end]
}

/// Where the tag `tag` (starting `<name`) ends (after its `>`, or the end of `tag`)
/// and its attributes as written (quotes taken off, entities left as they are).
fn attributes(tag: &str) -> (usize, Vec<(&str, &str)>) {
    let bytes = tag.as_bytes();
    let mut at = 1 + tag_name(tag).len();
    let mut found = Vec::new();
    let skip = |at: &mut usize, stop: &dyn Fn(u8) -> bool| {
        while *at < bytes.len() && !stop(bytes[*at]) {
            *at += 1;
        }
    };
    loop {
        skip(&mut at, &|b| !(b.is_ascii_whitespace() || b == b'/'));
        if at >= bytes.len() {
            return (bytes.len(), found);
        }
        if bytes[at] == b'>' {
            return (at + 1, found);
        }
        let name_start = at;
        skip(&mut at, &|b| {
            b.is_ascii_whitespace() || matches!(b, b'=' | b'>' | b'/')
        });
        let name = &tag[name_start..at];
        if at == name_start {
            at += 1; // a stray `=`
            continue;
        }
        skip(&mut at, &|b| !b.is_ascii_whitespace());
        if bytes.get(at) != Some(&b'=') {
            found.push((name, ""));
            continue;
        }
        at += 1;
        skip(&mut at, &|b| !b.is_ascii_whitespace());
        let value = match bytes.get(at) {
            Some(&quote @ (b'"' | b'\'')) => {
                let start = at + 1;
                at = start;
                skip(&mut at, &|b| b == quote);
                let value = &tag[start..at.min(bytes.len())];
                at += 1;
                value
            }
            _ => {
                let start = at;
                skip(&mut at, &|b| b.is_ascii_whitespace() || b == b'>');
                &tag[start..at]
            }
        };
        found.push((name, value));
    }
}

#[cfg(test)]
mod tests {
    use super::{images_as_links, is_data_url, page_can_show};

    #[test]
    fn only_self_contained_raster_pictures_are_shown() {
        let cases = [
            ("data:image/png;base64,iVBORw0KGgo=", true),
            (" DATA:image/JPEG;base64,/9j/", true),
            ("data:image/webp,abc", true),
            ("data:image/svg+xml;base64,PHN2Zz4=", false),
            ("data:text/html,<script>", false),
            ("data:image/png", false),
            ("https://example.com/a.png", false),
            ("//example.com/a.png", false),
            ("/favicon.ico", false),
            ("a.png", false),
            ("", false),
        ];
        for (src, shown) in cases {
            assert_eq!(page_can_show(src), shown, "{src:?}");
        }
        for (url, data) in [
            ("data:text/html,x", true),
            (" \tDaTa:x", true),
            ("https://x", false),
            ("dat", false),
        ] {
            assert_eq!(is_data_url(url), data, "{url:?}");
        }
    }

    #[test]
    fn an_image_the_page_cannot_show_becomes_a_link_or_its_text() {
        let png = "data:image/png;base64,iVBORw0KGgo=";
        let cases = [
            (
                "<p><img src=\"https://example.com/chart.png\" alt=\"the chart\" /></p>",
                "<p><a href=\"https://example.com/chart.png\">the chart</a></p>",
            ),
            (
                "<IMG SRC='https://x/a.png'>",
                "<a href=\"https://x/a.png\">https://x/a.png</a>",
            ),
            (
                "<img alt=\"a > b &amp; c\" src=x onerror=\"alert(1)\">after",
                "<a href=\"x\">a > b &amp; c</a>after",
            ),
            (
                "<img src='https://x/\"q\"' alt=\"<b>bold</b>\">",
                "<a href=\"https://x/&quot;q&quot;\">&lt;b>bold&lt;/b></a>",
            ),
            (
                "<a href=\"https://ci\"><img src=\"https://ci/badge.svg\" alt=\"build\"></a> <img src=y alt=z>",
                "<a href=\"https://ci\">build</a> <a href=\"y\">z</a>",
            ),
            ("<img alt=\"no source\">", "no source"),
            (
                "<img src=\"https://x",
                "<a href=\"https://x\">https://x</a>",
            ),
            ("<p>2 < 3 and <imgx></p>", "<p>2 < 3 and <imgx></p>"),
            ("no images", "no images"),
        ];
        for (html, rewritten) in cases {
            assert_eq!(images_as_links(html), rewritten, "{html:?}");
        }
        let kept = format!("<img src=\"{png}\" alt=\"dot\">");
        assert_eq!(images_as_links(&kept), kept);
    }
}
