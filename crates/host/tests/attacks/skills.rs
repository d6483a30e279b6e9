//! Special files in skill folders (a shared skill installed from elsewhere may hold
//! anything): reading one never blocks a turn, nor the skills every turn lists.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

use crate::harness::{Server, tool_results};

/// A named pipe at `path` (no writer ever opens it).
fn fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

/// A shared skill `name` with its SKILL.md.
fn skill(home: &Path, name: &str) -> std::path::PathBuf {
    let dir = home.join("skills").join(name);
    std::fs::create_dir_all(dir.join("references")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: Reads its references.\n---\nRead them.\n"),
    )
    .unwrap();
    dir
}

/// ReadSkill on a named pipe in a skill's folder ends at once with a clear refusal
/// (it used to hang the turn, with a thread still blocked after a cancel).
#[tokio::test]
async fn read_skill_refuses_a_named_pipe_at_once() {
    let server = Server::start_with(&["alice", "bob"], |home| {
        let dir = skill(home, "piped");
        fifo(&dir.join("references/pipe.md"));
    })
    .await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    server.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "call_pipe",
            "ReadSkill",
            json!({"name": "piped", "path": "references/pipe.md"}).to_string(),
        )]),
        ScriptedResponse::text("done"),
    ]);
    let turn = alice.start_turn(&id, "read the pipe", &[]).await;
    let timeline = alice
        .wait_turn_end_within(&id, &turn, Duration::from_secs(15))
        .await
        .unwrap_or_else(|t| panic!("ReadSkill on a pipe hung the turn: {t}"));
    let result = tool_results(&timeline).pop().unwrap();
    assert!(
        result.starts_with("Error: ReadSkill:") && result.contains("named pipe"),
        "{result}"
    );
    server.stop().await;
}

/// A named pipe as a shared skill's SKILL.md: the skills are read for every request of
/// every user, and it used to hang them all; now that skill is reported broken and
/// turns go on.
#[tokio::test]
async fn a_named_pipe_as_skill_md_stops_no_turn() {
    let server = Server::start_with(&["alice", "bob"], |home| {
        skill(home, "fine");
        let dir = home.join("skills/piped");
        std::fs::create_dir_all(&dir).unwrap();
        fifo(&dir.join("SKILL.md"));
    })
    .await;
    let bob = server.user("bob");
    let id = bob.create_conversation().await;
    server.model.push(ScriptedResponse::text("hello bob"));
    let turn = bob.start_turn(&id, "hi", &[]).await;
    bob.wait_turn_end_within(&id, &turn, Duration::from_secs(15))
        .await
        .unwrap_or_else(|t| panic!("a pipe as SKILL.md hung the turn: {t}"));
    let listed = bob.get_json("/api/skills").await;
    let piped = listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "piped")
        .cloned()
        .unwrap_or_default();
    assert!(
        piped["problems"].to_string().contains("named pipe"),
        "{listed}"
    );
    server.stop().await;
}
