//! agent.json's `checkpoints` keys through the real binary: the limits and extra
//! ignore rules reach a turn's capture, and a bad value is refused naming the file and
//! the key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use cli::{answer_titles, text};
use serde_json::json;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

#[tokio::test]
async fn the_configured_limit_and_ignore_rules_shape_the_turns_changes() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("agent.json"),
        json!({"checkpoints": {"maxFileBytes": 5, "maxCheckpointBytes": 50,
                               "ignore": ["*.log"]}})
        .to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(home.path().join("workspace")).unwrap();
    let model = TestModel::start().await.unwrap();
    answer_titles(&model);
    model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "x1",
            "ExecuteCommand",
            json!({"command": "echo 123456789 > big.txt; echo x > small.txt; echo y > out.log"})
                .to_string(),
        )]),
        ScriptedResponse::text("Done."),
    ]);
    let url = model.base_url();
    let run = |args: &[&str]| {
        let mut cmd = cli::smallebot(home.path(), Some(&url));
        cmd.args(args);
        cmd
    };
    let out = run(&["run", "write"]).output().await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&["conversations", "list"]).output().await.unwrap();
    let listed = text(&out.stdout);
    let id = listed.split_whitespace().next().unwrap().to_owned();
    let out = run(&["conversations", "show", &id]).output().await.unwrap();
    let shown = text(&out.stdout);
    let block = shown
        .split("Files changed:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no file changes in:\n{shown}"));
    let lines: Vec<&str> = block.lines().take(3).map(str::trim).collect();
    assert!(
        lines[1].starts_with(
            "created  big.txt  (not captured: 10 bytes, over the per-file limit of 5 bytes"
        ),
        "{shown}"
    );
    assert_eq!(lines[2], "created  small.txt  (- -> 2 B)", "{shown}");
    assert!(
        !block.contains("out.log"),
        "ignored by checkpoints.ignore:\n{shown}"
    );
}

#[tokio::test]
async fn a_bad_checkpoints_value_names_the_file_and_key() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("agent.json"),
        json!({"checkpoints": {"maxAgeDays": 0}}).to_string(),
    )
    .unwrap();
    let (ok, _, stderr) = cli::outcome(home.path(), &["run", "hi"]).await;
    assert!(!ok);
    assert!(stderr.contains("agent.json"), "{stderr}");
    assert!(
        stderr.contains("checkpoints.maxAgeDays must be at least 1, got 0"),
        "{stderr}"
    );
}
