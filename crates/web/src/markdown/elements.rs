//! The elements an answer's HTML may hold: one list for the sanitizer (which keeps
//! these and no others) and for the renderer (which writes a raw HTML tag of another
//! element as text), so a tag the renderer keeps is never dropped afterwards.

/// The elements kept: ammonia's default allow-list and the task list's checkbox.
pub(crate) const ELEMENTS: &[&str] = &[
    "a",
    "abbr",
    "acronym",
    "area",
    "article",
    "aside",
    "b",
    "bdi",
    "bdo",
    "blockquote",
    "br",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "footer",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "i",
    "img",
    "input",
    "ins",
    "kbd",
    "li",
    "map",
    "mark",
    "nav",
    "ol",
    "p",
    "pre",
    "q",
    "rp",
    "rt",
    "rtc",
    "ruby",
    "s",
    "samp",
    "small",
    "span",
    "strike",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "time",
    "tr",
    "tt",
    "u",
    "ul",
    "var",
    "wbr",
];

/// The kept elements that hold nothing (no end tag, nothing nested).
const VOID: &[&str] = &["area", "br", "col", "hr", "img", "input", "wbr"];

/// `name` as the list's own `&'static str` when it is a kept element.
pub(crate) fn kept(name: &str) -> Option<&'static str> {
    ELEMENTS
        .binary_search(&name)
        .ok()
        .and_then(|at| ELEMENTS.get(at).copied())
}

/// Whether `name` is a kept element that holds nothing.
pub(crate) fn is_void(name: &str) -> bool {
    VOID.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::{ELEMENTS, is_void, kept};

    #[test]
    fn the_list_is_sorted_and_voids_are_kept_elements() {
        assert!(
            ELEMENTS.windows(2).all(|w| w[0] < w[1]),
            "sorted, no repeats"
        );
        assert_eq!(kept("div"), Some("div"));
        assert_eq!(kept("script"), None);
        assert_eq!(kept("DIV"), None, "names are compared in lowercase");
        assert!(is_void("br") && !is_void("div"));
        assert!(super::VOID.iter().all(|v| kept(v).is_some()));
    }
}
