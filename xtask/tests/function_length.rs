//! Long functions stay rare: at most five product functions pass 100 lines (counted
//! from the line with `fn` to the line with the closing brace; unit-test modules, test
//! files and the testkit aside). A function that grows past it is split along its
//! steps, as a reader follows them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

/// Lines a product function may have before it counts as long.
const LONG: usize = 100;
/// How many long product functions the tree may hold.
const ALLOWED: usize = 5;

/// A function found in a file: its name, first line (1-based) and length in lines.
#[derive(Debug, PartialEq, Eq)]
struct Function {
    name: String,
    line: usize,
    lines: usize,
}

#[test]
fn at_most_five_product_functions_pass_a_hundred_lines() {
    let root = support::workspace_root();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        // The testkit plays the model and the browser in tests: not product code.
        if dir.file_name().is_some_and(|name| name != "testkit") {
            support::rust_files(&dir.join("src"), &mut files);
        }
    }
    assert!(files.len() > 100, "the product's files were not found");
    let mut long: Vec<(usize, String)> = Vec::new();
    for path in files.iter().filter(|path| !support::is_test_file(path)) {
        let text = std::fs::read_to_string(path).unwrap();
        let shown = path.strip_prefix(&root).unwrap_or(Path::new("")).display();
        for function in functions(&text) {
            if function.lines > LONG {
                long.push((
                    function.lines,
                    format!(
                        "{shown}:{} {} ({} lines)",
                        function.line, function.name, function.lines
                    ),
                ));
            }
        }
    }
    long.sort_by_key(|(lines, _)| std::cmp::Reverse(*lines));
    let list: Vec<&str> = long.iter().map(|(_, what)| what.as_str()).collect();
    assert!(
        long.len() <= ALLOWED,
        "{} product functions are longer than {LONG} lines (at most {ALLOWED} may be): split \
         them along their steps\n{}",
        long.len(),
        list.join("\n")
    );
}

/// The functions of a source file, outside its trailing `#[cfg(test)]` module; a
/// function inside another is part of it.
fn functions(text: &str) -> Vec<Function> {
    let blanked = blank(text);
    let lines: Vec<&str> = blanked.lines().collect();
    let raw: Vec<&str> = text.lines().collect();
    let end = raw
        .windows(2)
        .position(|pair| {
            pair[0].trim() == "#[cfg(test)]" && pair[1].trim_start().starts_with("mod ")
        })
        .unwrap_or(raw.len());
    let mut found = Vec::new();
    let mut index = 0;
    while index < end {
        let Some(name) = function_name(lines[index]) else {
            index += 1;
            continue;
        };
        let (mut depth, mut opened, mut last) = (0_i64, false, None);
        for (at, line) in lines.iter().enumerate().take(end).skip(index) {
            for c in line.chars() {
                match c {
                    '{' => (depth, opened) = (depth + 1, true),
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if opened && depth == 0 {
                last = Some(at);
                break;
            }
            // A declaration without a body (a trait's method).
            if !opened && line.trim_end().ends_with(';') {
                break;
            }
        }
        match last {
            Some(last) => {
                found.push(Function {
                    name,
                    line: index + 1,
                    lines: last - index + 1,
                });
                index = last + 1;
            }
            None => index += 1,
        }
    }
    found
}

/// The name of the function whose signature starts on `line`, if one does.
fn function_name(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix("pub(") {
            rest = after.split_once(')')?.1.trim_start();
            continue;
        }
        let qualifier = ["pub ", "async ", "const ", "unsafe ", "extern "]
            .iter()
            .find_map(|word| rest.strip_prefix(word));
        match qualifier {
            Some(after) => rest = after.trim_start(),
            None => break,
        }
    }
    let name: String = rest
        .strip_prefix("fn ")?
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// `text` with its comments, strings and character literals made spaces (newlines
/// kept), so that braces count only as code.
fn blank(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = chars.clone();
    let is_ident = |at: Option<usize>| {
        at.and_then(|i| chars.get(i))
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
    };
    let mut erase = |from: usize, to: usize| {
        for c in &mut out[from..to.min(chars.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let find = |from: usize, what: &[char]| {
        (from..chars.len())
            .find(|&i| chars[i..].starts_with(what))
            .map_or(chars.len(), |i| i + what.len())
    };
    let mut i = 0;
    while i < chars.len() {
        let next = chars.get(i + 1).copied();
        let end = match chars[i] {
            '/' if next == Some('/') => (i..chars.len())
                .find(|&j| chars[j] == '\n')
                .unwrap_or(chars.len()),
            '/' if next == Some('*') => find(i + 2, &['*', '/']),
            'r' if matches!(next, Some('"' | '#'))
                && (!is_ident(i.checked_sub(1))
                    || (chars[i - 1] == 'b' && !is_ident(i.checked_sub(2)))) =>
            {
                let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
                if chars.get(i + 1 + hashes) == Some(&'"') {
                    let mut close = vec!['"'];
                    close.extend(std::iter::repeat_n('#', hashes));
                    find(i + 2 + hashes, &close)
                } else {
                    i + 1
                }
            }
            '"' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j] != '"' {
                    j += if chars[j] == '\\' { 2 } else { 1 };
                }
                j + 1
            }
            '\'' if next == Some('\\') => find(i + 3, &['\'']),
            '\'' if chars.get(i + 2) == Some(&'\'') => i + 3,
            _ => i + 1,
        };
        if end > i + 1 {
            erase(i, end);
        }
        i = end.max(i + 1);
    }
    out.into_iter().collect()
}

#[test]
fn the_finder_measures_functions_and_sees_no_braces_in_strings_or_comments() {
    // (what, source, the functions found: name, first line, lines)
    type Case = (
        &'static str,
        &'static str,
        Vec<(&'static str, usize, usize)>,
    );
    let cases: [Case; 8] = [
        ("plain", "fn a() {\n    1\n}\n", vec![("a", 1, 3)]),
        (
            "qualifiers",
            "pub(crate) async fn b() {}\npub const unsafe fn c() {\n}\n",
            vec![("b", 1, 1), ("c", 2, 2)],
        ),
        (
            "braces in strings and comments",
            "fn d() {\n    let s = \"{{\"; // }\n    let r = r#\"}\"#;\n    /* { */\n}\n",
            vec![("d", 1, 5)],
        ),
        (
            "character literals and lifetimes",
            "fn e<'a>(x: &'a str) {\n    let c = '{';\n    let q = '\\'';\n}\nfn f() {}\n",
            vec![("e", 1, 4), ("f", 5, 1)],
        ),
        (
            "a nested function is part of its outer one",
            "fn g() {\n    fn h() {\n    }\n}\n",
            vec![("g", 1, 4)],
        ),
        (
            "a declaration has no body",
            "trait T {\n    fn i(&self);\n    fn j(&self) {\n    }\n}\n",
            vec![("j", 3, 2)],
        ),
        (
            "the unit-test module is not product code",
            "fn k() {}\n#[cfg(test)]\nmod tests {\n    fn long() {\n    }\n}\n",
            vec![("k", 1, 1)],
        ),
        (
            "byte and raw byte strings",
            "fn l() {\n    let b = b\"}\";\n    let rb = br\"}\";\n}\n",
            vec![("l", 1, 4)],
        ),
    ];
    for (what, source, expected) in cases {
        let found: Vec<(String, usize, usize)> = functions(source)
            .into_iter()
            .map(|f| (f.name, f.line, f.lines))
            .collect();
        let expected: Vec<(String, usize, usize)> = expected
            .into_iter()
            .map(|(name, line, lines)| (name.to_owned(), line, lines))
            .collect();
        assert_eq!(found, expected, "{what}");
    }
}
