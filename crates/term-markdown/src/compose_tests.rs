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
    // Markup closed and left open on both sides of the points a piece parses again
    // from.
    let markup = "Settled words then **bold words** and *it* then `code * star` and \
        [a link](u) then ~~struck~~ and a * lone star, *closing* and [no link] then \
        _under_ more <b>tag</b> words **bold *nested* end** and ``two ` ticks`` done *a";
    let item_markup = "- An item with *emphasis across words* and **more** then `x` end";
    let reference = "[r]: /u\nWords long enough to settle, then [r] and *em* then [r] end";
    for text in [
        text,
        items,
        bullet,
        last,
        loose,
        nested,
        deeper,
        markup,
        item_markup,
        reference,
    ] {
        extended_like_whole(text);
    }
}

fn extended_like_whole(text: &str) {
    let chars: Vec<char> = text.chars().collect();
    // Fed, or extended where it can be (plain text, markup parsed again from a mark).
    for (piece, extend) in [1, 2, 3, 5, 8]
        .into_iter()
        .flat_map(|p| [(p, false), (p, true)])
    {
        let mut composer = Composer::default();
        let mut committed = Vec::new();
        for chunk in chars.chunks(piece) {
            let chunk: String = chunk.iter().collect();
            if !extend || composer.extend(&chunk, 30).is_none() {
                composer.feed(&chunk, 30, &mut committed);
            }
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
fn the_open_code_line_is_extended_without_feeding_it() {
    let mut composer = Composer::default();
    let mut committed = Vec::new();
    composer.feed("```\n    ", 30, &mut committed);
    assert!(composer.open_lines(30).is_empty());
    // A blank line is not shown yet: it is fed.
    assert!(composer.extend("  ", 30).is_none());
    composer.feed("  let x", 30, &mut committed);
    assert_eq!(composer.open_lines(30).len(), 1);
    let tail = match composer.extend(" = 1;", 30) {
        Some(Extension::Lines(t)) => Some((t.from, t.lines)),
        _ => None,
    };
    let line = code_line(plain_code("      let x = 1;"));
    assert_eq!(tail, Some((0, vec![line])));
    assert!(composer.extend("\n", 30).is_none());
    // On the screen: only what the line gained.
    let size = crate::Size {
        width: 30,
        height: 10,
    };
    let mut live = crate::LiveMarkdown::new(Highlighter::default(), false);
    assert_eq!(live.push("```\nlet x", size), "╭─\n│ let x");
    assert_eq!(live.push(" = 1;", size), " = 1;");
}

#[test]
fn a_width_change_lays_the_open_unit_out_again_and_leaves_committed_lines() {
    let text = "A first paragraph, committed before the terminal narrows.\n\n\
        - one\n- A second item long enough to be settled, with words that wrap again";
    let (first, rest) = text.split_at(70);
    let mut composer = Composer::default();
    let mut committed = Vec::new();
    composer.feed(first, 40, &mut committed);
    let whole = composer.with_blank(composer.markdown(&composer.pending, 40).0);
    assert_eq!(composer.open_lines(40), whole);
    let before = committed.clone();
    assert!(!before.is_empty());
    for (n, chunk) in rest.as_bytes().chunks(4).enumerate() {
        let chunk = std::str::from_utf8(chunk).unwrap();
        // The width changes after the first piece, and back and forth later.
        let width = if n % 7 == 6 { 30 } else { 20 };
        match composer.extend(chunk, width) {
            Some(_) => {}
            None => composer.feed(chunk, width, &mut committed),
        }
        let whole = composer.with_blank(composer.markdown(&composer.pending, width).0);
        assert_eq!(
            composer.open_lines(width),
            whole,
            "{width}: {:?}",
            composer.pending
        );
    }
    assert_eq!(
        committed, before,
        "committed lines are never laid out again"
    );
}

#[test]
fn plain_text_growing_the_open_line_is_only_what_it_gained() {
    let mut composer = Composer::new(Highlighter::default());
    let mut committed = Vec::new();
    composer.feed("Some **bold** words", 40, &mut committed);
    assert_eq!(composer.open_lines(40).len(), 1);
    let grew = |e: Option<Extension>| match e {
        Some(Extension::Grew { line, text }) => Some((line, text)),
        _ => None,
    };
    let cases = [
        (" and", Some((0, " and".to_owned()))),
        ("more ", Some((0, "more".to_owned()))),
        ("  ", Some((0, String::new()))),
        ("x", Some((0, " x".to_owned()))),
        // Past the width: the word moves to a new line, drawn as lines.
        (" wrapping onto the next line", None),
    ];
    for (text, expected) in cases {
        assert_eq!(grew(composer.extend(text, 40)), expected, "{text:?}");
    }
}
