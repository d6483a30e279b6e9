//! Hooks through the real binary: `smallebot run` with a home whose hooks.json has a
//! `PreToolUse` hook that exits 2 for commands containing `rm`. The scripted model asks
//! for `rm x` (and `touch made`): `x` survives, `made` is made, the model's next
//! request carries the hook's stderr as the blocked call's result, and
//! `conversations show` lists both hook runs.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::time::Duration;

use cli::text;
use serde_json::json;
use smallebot_core::repository::ConversationRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

/// Blocks a command whose words start with `rm` (matched on the tool input as the hook
/// reads it on stdin), saying why on stderr.
const HOOKS_JSON: &str = r#"{"hooks": {"PreToolUse": [{"matcher": "ExecuteCommand", "hooks": [
    {"type": "command", "command": "if grep -q '\"command\": *\"rm '; then echo 'rm is not allowed: move files to trash/ instead' >&2; exit 2; fi"}
]}]}}"#;

fn command(id: &str, line: &str) -> ToolCallSpec {
    ToolCallSpec::new(id, "ExecuteCommand", json!({ "command": line }).to_string())
}

#[tokio::test]
async fn a_pre_tool_use_hook_exiting_2_blocks_rm_and_the_model_reads_why() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("hooks.json"), HOOKS_JSON).unwrap();
    let workspace = home.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("x"), "keep me").unwrap();

    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.respond_with(|r| {
        if r.last_role() == Some("tool") {
            ScriptedResponse::text("Done.")
        } else {
            ScriptedResponse::tool_calls([command("c1", "rm x"), command("c2", "touch made")])
        }
    });
    let out = tokio::time::timeout(
        Duration::from_secs(60),
        cli::smallebot(home.path(), Some(&model.base_url()))
            .args(["run", "Remove x."])
            .output(),
    )
    .await
    .expect("run ends")
    .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "Done.");
    assert_eq!(
        std::fs::read_to_string(workspace.join("x")).unwrap(),
        "keep me"
    );
    assert!(workspace.join("made").is_file(), "the hook let nothing run");

    // The model's next request carries the hook's reason as the blocked call's result.
    let requests = model.requests();
    let last = requests
        .iter()
        .rev()
        .find(|r| r.last_role() == Some("tool"))
        .expect("the request after the calls");
    let result = |id: &str| {
        last.messages()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .and_then(|m| m["content"].as_str().map(str::to_owned))
            .unwrap()
    };
    assert!(
        result("c1").contains("rm is not allowed: move files to trash/ instead"),
        "{}",
        result("c1")
    );
    assert!(!result("c2").contains("not allowed"), "{}", result("c2"));

    // `conversations show` lists the runs on the turn.
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let conversation = store.list_conversations(None).await.unwrap().remove(0);
    drop(store);
    let shown = cli::smallebot(home.path(), None)
        .args(["conversations", "show", &conversation.id.to_string()])
        .output()
        .await
        .unwrap();
    assert!(shown.status.success(), "{}", text(&shown.stderr));
    let shown = text(&shown.stdout);
    assert!(shown.contains("Hooks run:"), "{shown}");
    let line = |exit: &str| {
        shown.lines().any(|l| {
            l.trim_start()
                .starts_with("PreToolUse ExecuteCommand: if grep")
                && l.contains(&format!("-> {exit}"))
        })
    };
    assert!(line("exit 2"), "{shown}");
    assert!(line("exit 0"), "{shown}");
    assert!(shown.contains("ms, block"), "{shown}");
}
