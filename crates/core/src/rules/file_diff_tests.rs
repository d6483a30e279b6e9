use super::*;

fn numbered(lines: std::ops::Range<usize>) -> String {
    lines.map(|i| format!("line {i}\n")).collect()
}

#[test]
fn a_replaced_file_gets_a_bounded_unified_diff() {
    let long_old = numbered(0..200);
    let long_new = long_old.replace("line ", "row ");
    let cases: Vec<(&str, Option<&str>, &str, Option<&str>)> = vec![
        ("a new file", None, "hello\n", None),
        ("identical", Some("a\nb\n"), "a\nb\n", None),
        ("both empty", Some(""), "", None),
        (
            "one line changed",
            Some("a\nb\nc\n"),
            "a\nB\nc\n",
            Some("```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n```"),
        ),
        (
            "emptied",
            Some("a\n"),
            "",
            Some("```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +0,0 @@\n-a\n```"),
        ),
        (
            "CRLF lines are shown without their carriage return",
            Some("a\r\nb\r\n"),
            "a\r\nc\r\n",
            Some("```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n```"),
        ),
        (
            "only the line endings changed",
            Some("a\r\nb\r\n"),
            "a\nb\n",
            None,
        ),
        (
            "no line break at the end",
            Some("a\nb"),
            "a\nc",
            Some("```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n```"),
        ),
        (
            "a line break added at the end",
            Some("a\nb"),
            "a\nb\n",
            None,
        ),
    ];
    for (name, old, new, expected) in cases {
        let path = if name.contains("path") {
            "f\n.txt"
        } else {
            "f.txt"
        };
        assert_eq!(unified(path, old, new).as_deref(), expected, "{name}");
    }
    let cut = unified("f.txt", Some(&long_old), &long_new).unwrap();
    let lines: Vec<&str> = cut.lines().collect();
    // Fence, two headers, 80 lines, fence.
    assert_eq!(lines.len(), 1 + 2 + MAX_DIFF_LINES + 1, "{cut}");
    assert_eq!(lines[3], "@@ -1,200 +1,200 @@");
    // 1 hunk header + 400 changed lines, of which 79 are shown.
    assert_eq!(lines[lines.len() - 2], "… 322 more lines");
    assert_eq!(lines[lines.len() - 1], "```");
}

#[test]
fn a_result_with_a_diff_is_read_back() {
    let result = "Wrote 6 bytes to 'f.txt' (replaced the previous 6 bytes).\n\n\
                  ```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n--c\n```";
    let kinds: Vec<DiffLine> = classify(result).into_iter().map(|(_, k)| k).collect();
    use DiffLine::*;
    assert_eq!(
        kinds,
        [
            Text, Text, Header, Header, Header, Hunk, Context, Removed, Added, Removed, Header
        ]
    );
    let cases = [
        (
            result,
            Some(Changed {
                added: 1,
                removed: 2,
                cut: false,
            }),
        ),
        ("Wrote 5 bytes to 'f.txt' (new file).", None),
        ("```diff\n--- a/x\n+++ b/x\n```", None),
        (
            "# A README read whole\n\nIt shows:\n```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n```",
            None,
        ),
        (
            "ok\n\n```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-x\n… 12 more lines\n```",
            Some(Changed {
                added: 0,
                removed: 1,
                cut: true,
            }),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(changed(text), expected, "{text}");
    }
}
