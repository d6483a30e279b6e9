use super::*;

/// Lines of one block, and the spans expected of its last line.
type Case<'a> = (&'a [&'a str], &'a [(&'a str, Kind)]);

/// The spans of each line of `lines`, coloured as one block.
fn block(lines: &[&str]) -> Vec<Line> {
    let mut rust = RustLines::default();
    lines.iter().map(|line| rust.line(line)).collect()
}

/// Spans as `look` would give them for each (text, kind).
fn expected(parts: &[(&str, Kind)]) -> Line {
    let mut line = Line::new();
    for &(text, kind) in parts {
        push_text(&mut line, text, look(kind));
    }
    line
}

#[test]
fn tokens_are_coloured_by_what_they_are() {
    use Kind::*;
    let cases: &[(&str, &[(&str, Kind)])] = &[
        (
            "fn main() {",
            &[
                ("fn", Keyword),
                (" ", Plain),
                ("main", Function),
                ("() {", Plain),
            ],
        ),
        (
            "    let x: u64 = MAX_LEN + 2;",
            &[
                ("    ", Plain),
                ("let", Keyword),
                (" x: ", Plain),
                ("u64", Type),
                (" = ", Plain),
                ("MAX_LEN", Constant),
                (" + ", Plain),
                ("2", Number),
                (";", Plain),
            ],
        ),
        (
            "println!(\"hi {x}\");",
            &[
                ("println", Macro),
                ("!(", Plain),
                ("\"hi {x}\"", Str),
                (");", Plain),
            ],
        ),
        (
            "#[derive(Debug, Clone)]",
            &[("#[derive(Debug, Clone)]", Attribute)],
        ),
        (
            "#[cfg(test)] mod tests;",
            &[
                ("#[cfg(test)]", Attribute),
                (" ", Plain),
                ("mod", Keyword),
                (" tests;", Plain),
            ],
        ),
        (
            "struct Point { x: f64, ok: bool }",
            &[
                ("struct", Keyword),
                (" ", Plain),
                ("Point", Type),
                (" { x: ", Plain),
                ("f64", Type),
                (", ok: ", Plain),
                ("bool", Type),
                (" }", Plain),
            ],
        ),
        (
            "impl<'a> Trait for X<'a> {",
            &[
                ("impl", Keyword),
                ("<", Plain),
                ("'a", Lifetime),
                ("> ", Plain),
                ("Trait", Type),
                (" ", Plain),
                ("for", Keyword),
                (" ", Plain),
                ("X", Type),
                ("<", Plain),
                ("'a", Lifetime),
                ("> {", Plain),
            ],
        ),
        (
            "let done = true; // the end",
            &[
                ("let", Keyword),
                (" done = ", Plain),
                ("true", Constant),
                ("; ", Plain),
                ("// the end", Comment),
            ],
        ),
        ("", &[]),
    ];
    for (line, parts) in cases {
        assert_eq!(block(&[line])[0], expected(parts), "{line:?}");
    }
}

#[test]
fn what_a_line_leaves_open_colours_the_next() {
    use Kind::*;
    let cases: &[Case] = &[
        // A string on two lines.
        (
            &["let s = \"one", "two\"; x"],
            &[("two\"", Str), ("; x", Plain)],
        ),
        // A nested block comment, closed on the next line but one.
        (
            &["/* a /* nested */", "still", "*/ x"],
            &[("*/", Comment), (" x", Plain)],
        ),
        (
            &["/* a /* nested */", "still */ x"],
            &[("still */", Comment), (" x", Plain)],
        ),
        // A raw string whose quote alone does not close it.
        (
            &["let r = r#\"raw", "a \" quote", "end\"#;"],
            &[("end\"#", Str), (";", Plain)],
        ),
        // A raw string closed on its own line leaves nothing open.
        (&["let r = r#\"raw\"#;", "x"], &[("x", Plain)]),
        // A line comment never runs on.
        (&["// \"not a string", "x"], &[("x", Plain)]),
    ];
    for (lines, last) in cases {
        let coloured = block(lines);
        assert_eq!(coloured.last(), Some(&expected(last)), "{lines:?}");
    }
    let middle = &block(&["let r = r#\"raw", "a \" quote", "end\"#;"])[1];
    assert_eq!(middle, &expected(&[("a \" quote", Str)]));
}

#[test]
fn control_characters_are_made_visible() {
    let line = &block(&["let s = \"\u{1b}[31m\";"])[0];
    assert!(
        line.iter().all(|span| !span.text.contains('\u{1b}')),
        "{line:?}"
    );
}

#[test]
fn only_rust_fences_are_rust() {
    for (language, rust) in [
        ("rust", true),
        ("Rust", true),
        ("rs", true),
        ("python", false),
        ("", false),
    ] {
        assert_eq!(is_rust(language), rust, "{language}");
    }
}
