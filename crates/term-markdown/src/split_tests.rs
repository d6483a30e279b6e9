use super::*;

const FENCE: Fence = Fence {
    marker: '`',
    len: 3,
};

#[test]
fn finished_units_end_where_the_next_block_begins() {
    use Unit::*;
    type Case = (&'static str, Option<Fence>, Option<(Unit, usize)>);
    let cases: &[Case] = &[
        ("", None, None),
        ("partial line", None, None),
        ("\n", None, Some((Blank, 1))),
        ("  \nx", None, Some((Blank, 3))),
        ("# Title\n", None, Some((Markdown, 8))),
        ("#hashtag\nmore\n", None, None),
        ("---\n", None, Some((Markdown, 4))),
        ("```rust\n", None, Some((FenceOpen, 8))),
        ("``` `x`\n", None, None),
        // A paragraph ends at a blank line or a block of another kind.
        ("one\ntwo\n", None, None),
        ("one\ntwo\n\n", None, Some((Markdown, 8))),
        ("one\n# Next\n", None, Some((Markdown, 4))),
        ("one\n- item\n", None, Some((Markdown, 4))),
        ("Title\n===\n", None, Some((Markdown, 10))),
        ("one\n| a | b |\n", None, Some((Markdown, 4))),
        // A list item goes on with what is indented under it.
        ("1. a\n2. b\n", None, Some((Markdown, 5))),
        ("1. a\n   - x\n   - y\n2. b\n", None, Some((Markdown, 19))),
        ("- a\nlazy\n- b\n", None, Some((Markdown, 9))),
        ("- a\n\n  more\n\n- b\n", None, Some((Markdown, 12))),
        ("- a\n\n", None, None),
        // ... known as soon as the next item's marker is in.
        ("1. a\n   - x\n2. b", None, Some((Markdown, 12))),
        ("1. a\n2.", None, None),
        ("1. a\n  - x", None, None),
        ("- a\n\n- ", None, Some((Markdown, 4))),
        ("one\n- ", None, None),
        ("- a\n\nnext\n", None, Some((Markdown, 4))),
        ("10) ten\n11) eleven\n", None, Some((Markdown, 8))),
        // Quotes and tables go on while their lines do.
        ("> a\n> b\nc\n", None, Some((Markdown, 8))),
        ("| a |\n|---|\n| 1 |\n", None, None),
        ("| a |\n|---|\n| 1 |\n\n", None, Some((Markdown, 18))),
        // In a code block: each line, then the closing fence.
        ("let x;\n", Some(FENCE), Some((CodeLine, 7))),
        ("# comment\n", Some(FENCE), Some((CodeLine, 10))),
        ("```\n", Some(FENCE), Some((FenceClose, 4))),
        ("````\n", Some(FENCE), Some((FenceClose, 5))),
        ("```not\n", Some(FENCE), Some((CodeLine, 7))),
        ("let x", Some(FENCE), None),
    ];
    for (text, fence, expected) in cases {
        assert_eq!(next_unit(text, *fence), *expected, "{text:?}");
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

#[test]
fn a_line_whose_text_starts_with_a_letter_is_settled() {
    let cases = [
        ("Short", true),
        ("   - a nested", true),
        ("1. x", true),
        ("12) - é", true),
        ("", false),
        ("1", false),
        ("1. ", false),
        ("1. 2", false),
        ("-a", false),
        ("- - -", false),
        ("# title", false),
        ("> quote", false),
        ("| cell", false),
        ("`code", false),
        ("\tindented", false),
    ];
    for (line, settled) in cases {
        assert_eq!(text_starts_with_letter(line), settled, "{line:?}");
    }
}

#[test]
fn fences_and_their_language() {
    let cases = [
        ("```rust\n", Some(FENCE), "rust"),
        (
            "~~~~ python extra\n",
            Some(Fence {
                marker: '~',
                len: 4,
            }),
            "python",
        ),
        ("   ```\n", Some(FENCE), ""),
        ("    ```\n", None, ""),
        ("``\n", None, ""),
    ];
    for (line, fence, language) in cases {
        assert_eq!(opening_fence(line), fence, "{line:?}");
        if fence.is_some() {
            assert_eq!(fence_language(line), language, "{line:?}");
        }
    }
}

#[test]
fn rules_are_three_or_more_of_one_mark() {
    let cases = [
        ("---\n", true),
        ("* * *", true),
        ("   ___", true),
        ("----------", true),
        ("--", false),
        ("-*-", false),
        ("    ---", false),
        ("--- x", false),
        ("", false),
        ("===", false),
    ];
    for (line, rule) in cases {
        assert_eq!(is_rule(line), rule, "{line:?}");
    }
}
