//! Workspace file tools: path confinement (the attack table) and legitimate paths.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod workspace_fixture;

use serde_json::json;
use smallebot_core::entities::ToolCallStatus;
use workspace_fixture::Fixture;

#[tokio::test]
async fn path_attacks_are_refused_and_touch_nothing_outside() {
    let fx = Fixture::with_links();
    let before = fx.outside_snapshot();
    let long_path = "a/".repeat(2500);
    let long_name = "n".repeat(256);
    // (tool, arguments, a phrase the error must contain)
    let attacks = [
        ("ReadFile", json!({"path": ".."}), "leaves the workspace"),
        (
            "ReadFile",
            json!({"path": "../../etc/passwd"}),
            "leaves the workspace",
        ),
        ("ReadFile", json!({"path": "/etc/passwd"}), "is absolute"),
        (
            "WriteFile",
            json!({"path": "/tmp/x", "content": "x"}),
            "relative to the workspace root",
        ),
        ("ReadFile", json!({"path": "//etc/passwd"}), "is absolute"),
        (
            "ReadFile",
            json!({"path": "../workspace2/secret.txt"}),
            "leaves the workspace",
        ),
        (
            "WriteFile",
            json!({"path": "../workspace2/x", "content": "x"}),
            "leaves the workspace",
        ),
        (
            "ReadFile",
            json!({"path": "sibling_link/secret.txt"}),
            "outside the workspace",
        ),
        (
            "WriteFile",
            json!({"path": "sibling_link/x", "content": "x"}),
            "outside the workspace",
        ),
        (
            "WriteFile",
            json!({"path": "a/../../x", "content": "x"}),
            "leaves the workspace",
        ),
        (
            "ReadFile",
            json!({"path": "out_link"}),
            "outside the workspace",
        ),
        (
            "WriteFile",
            json!({"path": "out_link", "content": "pwned"}),
            "outside the workspace",
        ),
        (
            "AppendFile",
            json!({"path": "out_link", "content": "pwned"}),
            "outside the workspace",
        ),
        (
            "WriteFile",
            json!({"path": "out_dir/new.txt", "content": "x"}),
            "outside the workspace",
        ),
        (
            "WriteFile",
            json!({"path": "out_dir/deep/new.txt", "content": "x"}),
            "outside the workspace",
        ),
        (
            "CreateDirectory",
            json!({"path": "out_dir/sub"}),
            "outside the workspace",
        ),
        (
            "ReadFile",
            json!({"path": "out_dir/inside.txt"}),
            "outside the workspace",
        ),
        (
            "ListFiles",
            json!({"path": "out_dir"}),
            "outside the workspace",
        ),
        (
            "GrepContent",
            json!({"pattern": "secret", "path": "out_dir"}),
            "outside the workspace",
        ),
        (
            "WriteFile",
            json!({"path": "dangling", "content": "x"}),
            "target does not exist",
        ),
        (
            "AppendFile",
            json!({"path": "dangling", "content": "x"}),
            "target does not exist",
        ),
        (
            "ReadFile",
            json!({"path": "loop_a"}),
            "loop of symbolic links",
        ),
        (
            "WriteFile",
            json!({"path": "loop_a", "content": "x"}),
            "loop of symbolic links",
        ),
        (
            "WriteFile",
            json!({"path": "loop_a/x", "content": "x"}),
            "loop of symbolic links",
        ),
        ("ReadFile", json!({"path": "a\u{0}b"}), "NUL byte"),
        (
            "WriteFile",
            json!({"path": long_path, "content": "x"}),
            "over the limit of 4096",
        ),
        (
            "WriteFile",
            json!({"path": long_name, "content": "x"}),
            "over the limit of 255",
        ),
        ("ReadFile", json!({"path": "..\\x"}), "backslash"),
        (
            "WriteFile",
            json!({"path": "a\\..\\..\\x", "content": "x"}),
            "backslash",
        ),
        ("ReadFile", json!({"path": "~/x"}), "home directories"),
        ("ReadFile", json!({"path": "C:\\x"}), "Windows drive"),
        ("ListFiles", json!({"path": ".."}), "leaves the workspace"),
        (
            "CreateDirectory",
            json!({"path": "../workspace2/new"}),
            "leaves the workspace",
        ),
        (
            "GrepContent",
            json!({"pattern": "secret", "path": "../.."}),
            "leaves the workspace",
        ),
    ];
    for (tool, arguments, phrase) in attacks {
        let outcome = fx.call(tool, arguments.clone()).await;
        assert_eq!(
            outcome.status,
            ToolCallStatus::Denied,
            "{tool} {arguments}: {}",
            outcome.content
        );
        assert!(
            outcome.content.starts_with("Error: ") && outcome.content.contains(phrase),
            "{tool} {arguments}: expected '{phrase}' in {}",
            outcome.content
        );
        for leaked in ["sibling secret", "outside secret", "sentinel"] {
            assert!(!outcome.content.contains(leaked), "{}", outcome.content);
        }
        assert_eq!(
            fx.outside_snapshot(),
            before,
            "{tool} {arguments} changed the outside"
        );
    }
    assert!(!fx.base.join("outside/new.txt").exists());
    // Nothing was created inside either, besides the links themselves.
    let mut inside: Vec<_> = std::fs::read_dir(&fx.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    inside.sort();
    assert_eq!(
        inside,
        [
            "dangling",
            "loop_a",
            "loop_b",
            "out_dir",
            "out_link",
            "sibling_link"
        ]
    );
}

#[tokio::test]
async fn the_error_says_what_to_do() {
    let fx = Fixture::new();
    let text = fx.err("ReadFile", json!({"path": "../x"})).await;
    assert!(
        text.contains("'../x'") && text.contains("inside the workspace root"),
        "{text}"
    );
    let text = fx.err("ReadFile", json!({"path": "/etc/passwd"})).await;
    assert!(text.contains("e.g. 'notes/todo.md'"), "{text}");
    let text = fx.err("ReadFile", json!({"path": "missing.txt"})).await;
    assert!(
        text.contains("does not exist") && text.contains("ListFiles"),
        "{text}"
    );
    let outcome = fx.call("ReadFile", json!({"path": "missing.txt"})).await;
    assert_eq!(
        outcome.status,
        ToolCallStatus::Error,
        "a missing file is no refusal"
    );
}

#[tokio::test]
async fn legitimate_paths_work() {
    let fx = Fixture::new();
    let text = fx
        .ok(
            "WriteFile",
            json!({"path": "a/b/c.txt", "content": "hello"}),
        )
        .await;
    assert_eq!(text, "Wrote 5 bytes to 'a/b/c.txt' (new file).");
    assert_eq!(
        fx.ok("ReadFile", json!({"path": "a/b/c.txt"})).await,
        "hello"
    );
    assert_eq!(fx.read("a/b/c.txt"), "hello");

    fx.ok("WriteFile", json!({"path": "a/../b.txt", "content": "bee"}))
        .await;
    assert_eq!(fx.read("b.txt"), "bee");
    fx.ok("WriteFile", json!({"path": "./x", "content": "ex"}))
        .await;
    assert_eq!(fx.ok("ReadFile", json!({"path": "x"})).await, "ex");
    assert_eq!(
        fx.ok("ReadFile", json!({"path": "a/./b//c.txt"})).await,
        "hello"
    );
    // Names that merely look odd are fine inside.
    fx.ok("WriteFile", json!({"path": "...", "content": "dots"}))
        .await;
    fx.ok(
        "WriteFile",
        json!({"path": "a~b/é 漢.txt", "content": "ok"}),
    )
    .await;
    assert_eq!(fx.read("a~b/é 漢.txt"), "ok");

    let text = fx
        .ok("WriteFile", json!({"path": "x", "content": "longer"}))
        .await;
    // The diff after it: tests/workspace_write_diff.rs.
    assert_eq!(
        text.lines().next(),
        Some("Wrote 6 bytes to 'x' (replaced the previous 2 bytes).")
    );
    let text = fx
        .ok("AppendFile", json!({"path": "x", "content": "!!"}))
        .await;
    assert_eq!(text, "Appended 2 bytes to 'x' (now 8 bytes).");
    let text = fx
        .ok(
            "AppendFile",
            json!({"path": "log/new.md", "content": "l1\n"}),
        )
        .await;
    assert_eq!(text, "Appended 3 bytes to 'log/new.md' (new file).");
    assert_eq!(fx.read("x"), "longer!!");

    let text = fx.ok("CreateDirectory", json!({"path": "d/e/f"})).await;
    assert_eq!(text, "Created directory 'd/e/f'.");
    assert!(fx.root.join("d/e/f").is_dir());
    let text = fx.ok("CreateDirectory", json!({"path": "d/e"})).await;
    assert_eq!(text, "Directory 'd/e' already exists.");
}

#[tokio::test]
async fn links_that_stay_inside_are_followed() {
    let fx = Fixture::new();
    fx.write("real/file.txt", "inner");
    std::os::unix::fs::symlink("real", fx.root.join("alias")).unwrap();
    std::os::unix::fs::symlink("real/file.txt", fx.root.join("file_alias")).unwrap();
    assert_eq!(
        fx.ok("ReadFile", json!({"path": "alias/file.txt"})).await,
        "inner"
    );
    assert_eq!(
        fx.ok("ReadFile", json!({"path": "file_alias"})).await,
        "inner"
    );
    fx.ok(
        "WriteFile",
        json!({"path": "alias/new.txt", "content": "n"}),
    )
    .await;
    assert_eq!(fx.read("real/new.txt"), "n");
}

#[tokio::test]
async fn a_symlinked_workspace_root_is_its_target() {
    let fx = Fixture::new();
    let real = fx.base.join("real_ws");
    std::fs::create_dir_all(&real).unwrap();
    std::fs::create_dir_all(fx.root.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &fx.root).unwrap();
    fx.ok("WriteFile", json!({"path": "n.txt", "content": "in"}))
        .await;
    assert_eq!(std::fs::read_to_string(real.join("n.txt")).unwrap(), "in");
    fx.err("ReadFile", json!({"path": "../sentinel.txt"})).await;
}

#[tokio::test]
async fn files_and_directories_are_not_confused() {
    let fx = Fixture::new();
    fx.write("f.txt", "file");
    fx.write("dir/inner.txt", "x");
    let text = fx
        .err("WriteFile", json!({"path": "f.txt/child", "content": "x"}))
        .await;
    assert!(
        text.contains("'f.txt' is a file, not a directory"),
        "{text}"
    );
    let text = fx
        .err("WriteFile", json!({"path": "dir", "content": "x"}))
        .await;
    assert!(text.contains("is a directory"), "{text}");
    let text = fx
        .err("WriteFile", json!({"path": ".", "content": "x"}))
        .await;
    assert!(text.contains("workspace root itself"), "{text}");
    let text = fx.err("ReadFile", json!({"path": "dir"})).await;
    assert!(
        text.contains("is a directory") && text.contains("ListFiles"),
        "{text}"
    );
    let text = fx.err("CreateDirectory", json!({"path": "f.txt"})).await;
    assert!(text.contains("is a file"), "{text}");
    let text = fx.err("ReadFile", json!({"path": "f.txt/x"})).await;
    assert!(text.contains("is a file"), "{text}");
    assert_eq!(fx.read("f.txt"), "file");
}
