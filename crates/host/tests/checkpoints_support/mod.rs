//! What the checkpoint tests share: the issue's turn (WriteFile `a.txt`, then one
//! shell command creating, deleting and renaming files) run through the binary, and the
//! workspace's files as comparable pairs.
#![allow(dead_code)]

use std::path::Path;

use serde_json::json;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

use crate::cli::{self, answer_titles, text};

/// `smallebot --home HOME ARGS…` against `url`; its standard output (it must succeed).
pub async fn smallebot(home: &Path, url: &str, args: &[&str]) -> String {
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
pub async fn the_issues_turn(home: &Path) -> (TestModel, String) {
    the_issues_turn_on(home, &[]).await
}

/// A turn that writes `path` with `content` through WriteFile, then answers "Done.".
pub fn write_file_turn(path: &str, content: &str) -> [ScriptedResponse; 2] {
    [
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "w1",
            "WriteFile",
            json!({"path": path, "content": content}).to_string(),
        )]),
        ScriptedResponse::text("Done."),
    ]
}

/// [`the_issues_turn`] with `global` arguments before each command (`--database URL`).
pub async fn the_issues_turn_on(home: &Path, global: &[&str]) -> (TestModel, String) {
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
    let with = |args: &[&'static str]| [global, args].concat();
    smallebot(home, &url, &with(&["run", "change the files"])).await;
    let listed = smallebot(home, &url, &with(&["conversations", "list"])).await;
    let id = listed.split_whitespace().next().unwrap().to_owned();
    (model, id)
}

/// The workspace's files and their contents, in name order.
pub fn files(home: &Path) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = std::fs::read_dir(home.join("workspace"))
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(entry.path()).unwrap(),
            )
        })
        .collect();
    found.sort();
    found
}

pub fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(name, content)| ((*name).to_owned(), (*content).to_owned()))
        .collect()
}

pub const BEFORE: [(&str, &str); 2] = [("c.txt", "c was here\n"), ("d.txt", "d moves\n")];
pub const AFTER: [(&str, &str); 3] = [
    ("a.txt", "new a\n"),
    ("b.txt", "x\n"),
    ("e.txt", "d moves\n"),
];
