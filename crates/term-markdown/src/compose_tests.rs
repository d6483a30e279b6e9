use super::*;

#[test]
fn an_extended_paragraph_has_the_lines_of_one_parsed_whole() {
    let text = "A first line that is long enough, then *emphasis* and **strong** words, \
        `code`, a [link](https://x.y) &amp; entities, 1. numbers. and more words to wrap\n\
        onto a second line  \nwith a hard break, trailing spaces   and 宽字符 wide text.";
    let items = "12. A numbered item long enough to be settled, with words to wrap \
        and *markup*, 1. more\n    continued on an indented line";
    let bullet = "- A bulleted item long enough to be settled, with words to wrap";
    let last = "1. first\n   - nested\n2. A second item long enough to be settled, with \
        words to wrap and *markup*, 1. more";
    let loose = "- one\n\n- A loose item long enough to be settled, with words to wrap";
    let nested = "1. An item\n   - A nested item long enough to wrap, with words *and* more words";
    let deeper = "- a\n  1. b\n     - A deeply nested item with words to wrap, 2. not an item";
    for text in [text, items, bullet, last, loose, nested, deeper] {
        extended_like_whole(text);
    }
}

fn extended_like_whole(text: &str) {
    let chars: Vec<char> = text.chars().collect();
    for piece in [1, 2, 3, 5, 8] {
        let mut composer = Composer::default();
        let mut committed = Vec::new();
        for chunk in chars.chunks(piece) {
            composer.feed(&chunk.iter().collect::<String>(), 30, &mut committed);
            let open = composer.open_lines(30);
            let whole = composer.with_blank(composer.markdown(&composer.pending, 30).0);
            assert_eq!(open, whole, "{piece}: {:?}", composer.pending);
        }
        // Only items before the last were committed (once the next one's marker was in).
        assert!(committed.len() <= 2, "{committed:?}");
        assert!(composer.paragraph.is_some(), "{text:?} was extended");
    }
}

#[test]
fn only_plain_text_on_a_settled_line_extends_a_paragraph() {
    let cases = [
        ("A settled first line", " goes on, plainly.", true),
        ("A settled first line", "", true),
        ("Short", " text", true),
        ("12", " text", false),
        ("- ", "text", false),
        ("   - ab", "c", true),
        ("A settled line\n1", ". item", false),
        ("A settled first line", " **bold", false),
        ("A settled first line", " `code", false),
        ("A settled first line", "\nnext", false),
        ("A settled line [link]", "(url)", false),
        ("A settled line &amp", ";", false),
        ("A settled line \\", "x", false),
        ("A settled first line", " and 宽字符", true),
    ];
    for (open, added, expected) in cases {
        assert_eq!(
            extends_plainly(open, added),
            expected,
            "{open:?} + {added:?}"
        );
    }
}
