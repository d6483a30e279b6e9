//! Checkpoints through the real binary (issue 44): a scripted turn writes a file with
//! WriteFile and creates, deletes and renames files with one shell command; the turn
//! lists every change, its contents kept beside the database.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;

use cli::{answer_titles, text};
use serde_json::json;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

/// `smallebot --home HOME ARGS…` against `url`; its standard output (it must succeed).
async fn smallebot(home: &Path, url: &str, args: &[&str]) -> String {
    let out = cli::smallebot(home, Some(url))
        .args(args)
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stdout)
}

/// A home whose workspace holds `c.txt` and `d.txt`, and a model scripted for the
/// issue's turn: WriteFile `a.txt`, then `echo x > b.txt; rm c.txt; mv d.txt e.txt`.
async fn the_issues_turn(home: &Path) -> (TestModel, String) {
    let ws = home.join("workspace");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("c.txt"), "c was here\n").unwrap();
    std::fs::write(ws.join("d.txt"), "d moves\n").unwrap();
    let model = TestModel::start().await.unwrap();
    answer_titles(&model);
    model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "w1",
            "WriteFile",
            json!({"path": "a.txt", "content": "new a\n"}).to_string(),
        )]),
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "x1",
            "ExecuteCommand",
            json!({"command": "echo x > b.txt; rm c.txt; mv d.txt e.txt"}).to_string(),
        )]),
        ScriptedResponse::text("Done."),
    ]);
    let url = model.base_url();
    smallebot(home, &url, &["run", "change the files"]).await;
    let listed = smallebot(home, &url, &["conversations", "list"]).await;
    let id = listed.split_whitespace().next().unwrap().to_owned();
    (model, id)
}

#[tokio::test]
async fn a_turn_lists_the_five_changes_its_tools_made() {
    let home = tempfile::tempdir().unwrap();
    let (model, id) = the_issues_turn(home.path()).await;
    let ws = home.path().join("workspace");
    assert_eq!(
        std::fs::read_to_string(ws.join("e.txt")).unwrap(),
        "d moves\n"
    );
    assert!(!ws.join("c.txt").exists());

    let shown = smallebot(
        home.path(),
        &model.base_url(),
        &["conversations", "show", &id],
    )
    .await;
    let block = shown
        .split("Files changed:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no file changes in:\n{shown}"));
    let lines: Vec<&str> = block.lines().take(5).map(str::trim).collect();
    assert!(lines[0].starts_with("turn 1 ("), "{block}");
    assert_eq!(
        lines[1..],
        [
            "created  a.txt  (- -> 6 B)",
            "created  b.txt  (- -> 2 B)",
            "deleted  c.txt  (11 B -> -)",
            "renamed  d.txt -> e.txt  (8 B -> 8 B)",
        ],
        "{shown}"
    );
    // The contents before the turn are kept beside the database, once per digest.
    let kept = |content: &str| {
        use sha2::Digest as _;
        let digest = format!("{:x}", sha2::Sha256::digest(content.as_bytes()));
        home.path()
            .join("checkpoints")
            .join(&digest[..2])
            .join(&digest)
    };
    for content in ["c was here\n", "d moves\n", "new a\n", "x\n"] {
        assert_eq!(
            std::fs::read_to_string(kept(content)).unwrap(),
            content,
            "{content:?} kept"
        );
    }
}
