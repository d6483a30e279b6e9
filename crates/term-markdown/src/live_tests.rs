use super::*;

const SIZE: Size = Size {
    width: 40,
    height: 24,
};

/// What a terminal shows after `out` (cursor-up, erase and line breaks obeyed), with
/// styles dropped.
fn screen(out: &str) -> Vec<String> {
    let mut lines: Vec<String> = vec![String::new()];
    let mut row = 0;
    let mut rest = out;
    while let Some(c) = rest.chars().next() {
        if let Some(tail) = rest.strip_prefix("\x1b[") {
            let end = tail.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(0);
            let (args, command) = (&tail[..end], &tail[end..=end]);
            match command {
                "A" => row -= args.parse::<usize>().unwrap_or(1),
                "J" => {
                    lines.truncate(row + 1);
                    lines[row].clear();
                }
                _ => {}
            }
            rest = &tail[end + 1..];
            continue;
        }
        match c {
            '\r' => lines[row].clear(),
            '\n' => {
                row += 1;
                if lines.len() <= row {
                    lines.push(String::new());
                }
            }
            c => lines[row].push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    lines
}

fn streamed(chunks: &[&str], size: Size) -> (String, LiveMarkdown) {
    let mut live = LiveMarkdown::new(Highlighter::default(), false);
    let out: String = chunks.iter().map(|c| live.push(c, size)).collect();
    (out, live)
}

#[test]
fn documents_render_blocks_as_a_reader_expects() {
    let highlighter = Highlighter::default();
    let cases: &[(&str, &[&str])] = &[
        (
            "# Title\nText *em* **strong**",
            &["Title", "Text em strong"],
        ),
        (
            "1. first\n2. second\n3. third",
            &["1. first", "2. second", "3. third"],
        ),
        (
            "1. a\n   1. x\n   2. y\n2. b\n   - z",
            &["1. a", "   1. x", "   2. y", "2. b", "   ◦ z"],
        ),
        ("1. a\n\n1. b\n\n1. c", &["1. a", "", "2. b", "", "3. c"]),
        ("7. seven\n8. eight", &["7. seven", "8. eight"]),
        ("- [x] done\n- [ ] todo", &["• ☑ done", "• ☐ todo"]),
        ("> quoted\n> more", &["│ quoted more"]),
        (
            "a\n\n---\n\nb",
            &["a", "", "────────────────────────────────────────", "", "b"],
        ),
        (
            "[docs](https://x.y) and <https://a.b>",
            &["docs (https://x.y) and https://a.b"],
        ),
        (
            "| Name | Size |\n|---|--:|\n| alpha | 1 |\n| b | 12345 |",
            &[
                "Name  │  Size",
                "──────┼──────",
                "alpha │     1",
                "b     │ 12345",
            ],
        ),
        ("```\nplain\n```", &["╭─", "│ plain", "╰─"]),
        ("```rust\nfn x() {}\n", &["╭─ rust", "│ fn x() {}", "╰─"]),
        ("\n\n\npara\n\n\n\nnext\n\n", &["para", "", "next"]),
        ("esc \x1b[2J here", &["esc ^[[2J here"]),
        (
            "A line of words that is longer than forty columns wide.",
            &["A line of words that is longer than", "forty columns wide."],
        ),
    ];
    for (text, expected) in cases {
        let shown = render_document(text, 40, false, &highlighter);
        assert_eq!(shown.lines().collect::<Vec<_>>(), *expected, "{text:?}");
    }
}

#[test]
fn streaming_in_any_chunks_ends_as_the_whole_document() {
    let text = "# Plan\n\nSome **bold** words that wrap across the narrow width here.\n\n1. one\n2. two\n   - nested\n3. three\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```sh\nls -l\necho hi\n```\n\n> done\n";
    let whole = render_document(text, 40, false, &Highlighter::default());
    for chunk in [1, 2, 3, 7, 16, 1000] {
        let chars: Vec<char> = text.chars().collect();
        let pieces: Vec<String> = chars.chunks(chunk).map(|c| c.iter().collect()).collect();
        let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let (mut out, mut live) = streamed(&refs, SIZE);
        out.push_str(&live.finish(SIZE));
        let mut shown = screen(&out);
        assert_eq!(shown.pop().as_deref(), Some(""), "ends with a line break");
        assert_eq!(shown.join("\n"), whole, "chunks of {chunk}");
    }
}

#[test]
fn every_delta_shows_what_the_text_so_far_shows_drawn_at_once() {
    let text = "A paragraph long enough to be settled, with words that wrap across the \
        narrow width, and **bold**, then plain words again until it wraps twice more.\n\n\
        1. one\n   - nested\n2. A numbered item long enough to be settled, with words that wrap past the width\n";
    let chars: Vec<char> = text.chars().collect();
    for (chunk, size) in [
        (1, SIZE),
        (3, SIZE),
        (
            2,
            Size {
                width: 40,
                height: 4,
            },
        ),
    ] {
        let mut live = LiveMarkdown::new(Highlighter::default(), true);
        let mut out = String::new();
        let mut so_far = String::new();
        for piece in chars.chunks(chunk) {
            let piece: String = piece.iter().collect();
            so_far.push_str(&piece);
            out.push_str(&live.push(&piece, size));
            let mut whole = LiveMarkdown::new(Highlighter::default(), true);
            let at_once = whole.push(&so_far, size);
            if size.height > 4 {
                assert_eq!(screen(&out), screen(&at_once), "{chunk}: {so_far:?}");
            } else {
                let (shown, at_once) = (screen(&out), screen(&at_once));
                assert!(
                    shown.ends_with(&at_once[at_once.len().min(2)..]),
                    "{so_far:?} {shown:#?} {at_once:#?}"
                );
            }
        }
    }
}

#[test]
fn a_line_that_only_grows_gets_just_its_new_characters() {
    let mut live = LiveMarkdown::new(Highlighter::default(), true);
    assert_eq!(
        live.push("A settled first line", SIZE),
        "A settled first line"
    );
    assert_eq!(live.push(" goes on", SIZE), " goes on");
    // A word that no longer fits moves to a new line: the line is drawn again.
    assert_eq!(live.push(" and", SIZE), " and");
    let out = live.push("alongerword", SIZE);
    assert_eq!(out, "\r\x1b[JA settled first line goes on\nandalongerword");
    assert_eq!(live.push(" more", SIZE), " more");
}

#[test]
fn an_open_table_or_quote_is_drawn_again_only_when_a_line_ends() {
    let mut live = LiveMarkdown::new(Highlighter::default(), false);
    assert_eq!(live.push("| a | b |\n", SIZE), "| a | b |");
    for piece in ["|---", "|---|"] {
        assert_eq!(live.push(piece, SIZE), "", "{piece:?}");
    }
    assert_ne!(live.push("\n", SIZE), "");
    assert_eq!(live.push("| 1", SIZE), "");
    // Drawn at another size: drawn again at once.
    assert_ne!(live.push(" | 2", Size { width: 30, ..SIZE }), "");
    let mut live = LiveMarkdown::new(Highlighter::default(), false);
    assert_eq!(live.push("> quoted\n", SIZE), "│ quoted");
    assert_eq!(live.push("> more", SIZE), "");
    assert_eq!(screen(&live.push("\n", SIZE)), ["│ quoted more"]);
}

#[test]
fn the_open_block_shows_at_once_and_is_redrawn_in_place() {
    let mut live = LiveMarkdown::new(Highlighter::default(), false);
    // The first words show before their line ends.
    let out = live.push("Hello **wor", SIZE);
    assert_eq!(out, "Hello **wor");
    assert!(live.is_open());
    // Only the open line is rewritten.
    let out = live.push("ld** again", SIZE);
    assert_eq!(out, "\r\x1b[JHello world again");
    // A finished paragraph is committed; the next block opens below it.
    let out = live.push("\n\n- item", SIZE);
    assert_eq!(out, "\n\n• item");
    let mut all = String::from("Hello world again\n\n• item");
    all.push_str(&live.push(" one\n- item two\n", SIZE));
    all.push_str(&live.finish(SIZE));
    assert_eq!(
        screen(&all),
        ["Hello world again", "", "• item one", "• item two", ""]
    );
    assert!(!live.is_open());
}

#[test]
fn a_block_taller_than_the_screen_commits_what_does_not_fit() {
    let size = Size {
        width: 20,
        height: 5,
    };
    let text = "word ".repeat(40);
    let (mut out, mut live) = streamed(&[&text], size);
    assert!(live.shown.len() <= 3, "{:?}", live.shown);
    out.push_str(&live.push(" end", size));
    out.push_str(&live.finish(size));
    let whole = render_document(&format!("{text} end"), 20, false, &Highlighter::default());
    let mut shown = screen(&out);
    shown.pop();
    assert_eq!(shown.join("\n"), whole);
}

#[test]
fn a_resize_reflows_the_open_block() {
    let wide = Size {
        width: 40,
        height: 24,
    };
    let narrow = Size {
        width: 20,
        height: 24,
    };
    let (out, mut live) = streamed(&["one two three four five six seven eight"], wide);
    assert_eq!(out, "one two three four five six seven eight");
    // The 39-column line now takes two rows: up one, clear, drawn at 20 columns.
    let out = live.resize(narrow);
    assert_eq!(
        out,
        "\r\x1b[1A\x1b[Jone two three four\nfive six seven eight"
    );
}

#[test]
fn code_is_highlighted_and_labelled_with_colours_on() {
    let shown = render_document(
        "```python\nprint('x')\n```",
        40,
        true,
        &Highlighter::default(),
    );
    assert!(shown.contains("python"), "{shown:?}");
    assert!(shown.contains("\x1b[38;5;"), "{shown:?}");
    let plain = render_document(
        "```python\nprint('x')\n```",
        40,
        false,
        &Highlighter::default(),
    );
    assert!(!plain.contains('\x1b'), "{plain:?}");
}

#[test]
fn no_code_no_grammars() {
    let highlighter = Highlighter::default();
    let _ = render_document("# Just text\n\n- a list", 40, true, &highlighter);
    assert!(!highlighter.is_loaded());
}

#[test]
fn a_terminal_made_shorter_commits_the_open_lines_that_no_longer_fit() {
    let (tall, short) = (
        Size {
            width: 20,
            height: 24,
        },
        Size {
            width: 20,
            height: 4,
        },
    );
    let mut live = LiveMarkdown::new(Highlighter::default(), false);
    live.push(
        "A paragraph long enough to wrap over several lines of twenty columns",
        tall,
    );
    assert!(live.shown.len() > 2, "{:?}", live.shown);
    // Plain text that only grows the last line, on a shorter screen.
    live.push(" more", short);
    let rows = rows_of(live.shown.iter().map(|l| l.width), short.width);
    assert!(rows <= 2, "{:?}", live.shown);
}
