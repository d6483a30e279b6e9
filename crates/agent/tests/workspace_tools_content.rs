//! Workspace file tools: ReadFile paging and caps, ListFiles, GrepContent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod workspace_fixture;

use serde_json::json;
use workspace_fixture::Fixture;

fn numbered_lines(count: usize) -> String {
    (1..=count).map(|n| format!("line {n}\n")).collect()
}

#[tokio::test]
async fn read_file_pages_by_lines() {
    let fx = Fixture::new();
    fx.write("ten.txt", numbered_lines(10));
    let text = fx.ok("ReadFile", json!({"path": "ten.txt"})).await;
    assert_eq!(
        text,
        numbered_lines(10),
        "a whole file comes back unchanged"
    );

    let text = fx
        .ok(
            "ReadFile",
            json!({"path": "ten.txt", "offset": 2, "limit": 3}),
        )
        .await;
    assert_eq!(
        text,
        "line 3\nline 4\nline 5\n[truncated: showing lines 3–5 of 10; call ReadFile with \
         offset=5 to continue]"
    );
    let text = fx
        .ok("ReadFile", json!({"path": "ten.txt", "offset": 8}))
        .await;
    assert_eq!(
        text,
        "line 9\nline 10\n[showing lines 9–10 of 10: end of file]"
    );
    let text = fx
        .ok(
            "ReadFile",
            json!({"path": "ten.txt", "offset": "9", "limit": "5"}),
        )
        .await;
    assert!(
        text.starts_with("line 10\n"),
        "numeric strings are accepted: {text}"
    );

    let text = fx
        .err("ReadFile", json!({"path": "ten.txt", "offset": 10}))
        .await;
    assert!(
        text.contains("past the end") && text.contains("10 lines"),
        "{text}"
    );

    fx.write("empty.txt", "");
    let text = fx.ok("ReadFile", json!({"path": "empty.txt"})).await;
    assert!(text.contains("is empty"), "{text}");
}

#[tokio::test]
async fn read_file_caps_at_one_mebibyte_and_says_how_to_continue() {
    let fx = Fixture::new();
    let count = 200_000; // "line N\n": about 2.2 MB
    fx.write("big.txt", numbered_lines(count));
    let first = fx.ok("ReadFile", json!({"path": "big.txt"})).await;
    assert!(first.len() <= 1024 * 1024, "{}", first.len());
    let note = first.lines().last().unwrap();
    let shown: usize = first.lines().count() - 1;
    assert_eq!(
        note,
        format!(
            "[truncated: showing lines 1–{shown} of {count}; call ReadFile with offset={shown} \
             to continue]"
        )
    );
    assert!(shown > 50_000, "{shown}");
    let second = fx
        .ok("ReadFile", json!({"path": "big.txt", "offset": shown}))
        .await;
    assert!(
        second.starts_with(&format!("line {}\n", shown + 1)),
        "continues where it left"
    );

    // One line longer than the cap: its head, and how to go on.
    fx.write("one_line.txt", "é".repeat(700_000) + "\nnext\n");
    let text = fx.ok("ReadFile", json!({"path": "one_line.txt"})).await;
    assert!(text.len() <= 1024 * 1024);
    assert!(
        text.contains("line 1 is longer than one call can return"),
        "{}",
        &text[text.len() - 200..]
    );
    assert!(text.contains("offset=1"));
    let next = fx
        .ok("ReadFile", json!({"path": "one_line.txt", "offset": 1}))
        .await;
    assert!(next.starts_with("next\n"), "{next}");

    // Invalid UTF-8 shows as U+FFFD but never overflows the cap.
    fx.write("latin.txt", vec![0xE9_u8; 1_500_000]);
    let text = fx.ok("ReadFile", json!({"path": "latin.txt"})).await;
    assert!(text.len() <= 1024 * 1024, "{}", text.len());
    assert!(text.starts_with('\u{FFFD}'));
}

#[tokio::test]
async fn read_file_refuses_binary_files() {
    let fx = Fixture::new();
    fx.write("image.png", [0x89, b'P', b'N', b'G', 0, 0, 0, 13]);
    let text = fx.err("ReadFile", json!({"path": "image.png"})).await;
    assert!(
        text.contains("binary") && text.contains("8 bytes"),
        "{text}"
    );
}

#[tokio::test]
async fn list_files_is_sorted_recursive_and_bounded() {
    let fx = Fixture::new();
    let text = fx.ok("ListFiles", json!({})).await;
    assert!(
        text.contains("is empty"),
        "the root is created on demand: {text}"
    );
    fx.write("b.txt", "bb");
    fx.write("a/z.md", "z");
    fx.write("a/c/d.txt", "");
    fx.ok("CreateDirectory", json!({"path": "empty"})).await;
    std::os::unix::fs::symlink("b.txt", fx.root.join("link")).unwrap();
    let text = fx.ok("ListFiles", json!({})).await;
    let body: Vec<_> = text.lines().skip(1).collect();
    assert_eq!(
        body,
        [
            "a/",
            "a/c/",
            "a/c/d.txt (0 bytes)",
            "a/z.md (1 bytes)",
            "b.txt (2 bytes)",
            "empty/",
            "link -> b.txt (symbolic link)",
        ],
        "{text}"
    );
    assert!(text.starts_with("Contents of '.' (7 entries;"), "{text}");
    let text = fx.ok("ListFiles", json!({"path": "a/c"})).await;
    assert!(
        text.ends_with("a/c/d.txt (0 bytes)\n"),
        "paths are relative to the root: {text}"
    );
    let text = fx.ok("ListFiles", json!({"path": "b.txt"})).await;
    assert!(text.contains("is a file (2 bytes)"), "{text}");

    for n in 0..1100 {
        fx.write(&format!("many/f{n:04}.txt"), "");
    }
    let text = fx.ok("ListFiles", json!({"path": "many"})).await;
    assert_eq!(
        text.lines().filter(|l| l.starts_with("many/f")).count(),
        1000
    );
    assert!(text.contains("many/f0999.txt") && !text.contains("many/f1000.txt"));
    assert!(
        text.contains("[listing stopped at 1000 entries"),
        "{}",
        &text[text.len() - 200..]
    );
}

#[tokio::test]
async fn grep_content_finds_lines_with_paths_and_numbers() {
    let fx = Fixture::new();
    fx.write(
        "src/main.rs",
        "fn main() {\n    // TODO: greet\n    println!(\"hi\");\n}\n",
    );
    fx.write("notes/todo.md", "- todo: buy milk\n- done\n");
    fx.write("blob.bin", b"TODO\0binary");
    fx.write("long.txt", format!("TODO {}\n", "x".repeat(1000)));
    std::os::unix::fs::symlink(fx.base.join("sentinel.txt"), fx.root.join("out")).unwrap();

    let text = fx.ok("GrepContent", json!({"pattern": "TODO"})).await;
    let lines: Vec<_> = text.lines().collect();
    assert_eq!(
        lines[0].chars().count(),
        "long.txt:1: ".len() + 300 + 1,
        "{}",
        lines[0]
    );
    assert!(lines[0].starts_with("long.txt:1: TODO xxx") && lines[0].ends_with('…'));
    assert_eq!(lines[1], "src/main.rs:2:     // TODO: greet");
    assert_eq!(lines[2], "[skipped: 1 binary, 1 symbolic link]");
    assert_eq!(lines.len(), 3, "{text}");

    let text = fx
        .ok(
            "GrepContent",
            json!({"pattern": "(?i)todo", "path": "notes"}),
        )
        .await;
    assert_eq!(text, "notes/todo.md:1: - todo: buy milk\n");
    let text = fx
        .ok(
            "GrepContent",
            json!({"pattern": "fn \\w+\\(", "path": "src/main.rs"}),
        )
        .await;
    assert_eq!(text, "src/main.rs:1: fn main() {\n");
    let text = fx.ok("GrepContent", json!({"pattern": "nowhere"})).await;
    assert!(
        text.starts_with("No matches for /nowhere/ in '.' (4 files searched)."),
        "{text}"
    );
}

#[tokio::test]
async fn grep_content_clamps_max_results() {
    let fx = Fixture::new();
    fx.write("many.txt", "hit\n".repeat(700));
    let count = |text: &str| text.lines().filter(|l| l.starts_with("many.txt:")).count();

    let text = fx.ok("GrepContent", json!({"pattern": "hit"})).await;
    assert_eq!(count(&text), 50, "default 50");
    assert!(text.contains("[stopped at 50 matches;"), "{text}");
    let text = fx
        .ok("GrepContent", json!({"pattern": "hit", "maxResults": 3}))
        .await;
    assert_eq!(count(&text), 3);
    let text = fx
        .ok("GrepContent", json!({"pattern": "hit", "maxResults": 0}))
        .await;
    assert_eq!(count(&text), 1);
    assert!(text.contains("maxResults 0 was clamped to 1"), "{text}");
    let text = fx
        .ok(
            "GrepContent",
            json!({"pattern": "hit", "maxResults": 100_000}),
        )
        .await;
    assert_eq!(count(&text), 500);
    assert!(
        text.contains("maxResults 100000 was clamped to 500"),
        "{text}"
    );
}

#[tokio::test]
async fn grep_content_rejects_bad_and_enormous_patterns() {
    let fx = Fixture::new();
    fx.write("a.txt", "abc\n");
    let text = fx.err("GrepContent", json!({"pattern": "fn main("})).await;
    assert!(
        text.contains("not a valid regular expression") && text.contains("backslash"),
        "{text}"
    );
    let text = fx
        .err("GrepContent", json!({"pattern": "\\w{1000}{1000}"}))
        .await;
    assert!(text.contains("too large once compiled"), "{text}");
    let text = fx
        .err("GrepContent", json!({"pattern": "(a|b|c|d){500}{500}"}))
        .await;
    assert!(text.contains("too large"), "{text}");
    // A pathological-for-backtracking pattern is linear here.
    fx.write("aaa.txt", "a".repeat(50_000) + "!\n");
    let started = std::time::Instant::now();
    let text = fx
        .ok(
            "GrepContent",
            json!({"pattern": "(a+)+$", "path": "aaa.txt"}),
        )
        .await;
    assert!(
        text.starts_with("No matches"),
        "{}",
        &text[..80.min(text.len())]
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}
