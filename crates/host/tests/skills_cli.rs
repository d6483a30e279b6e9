//! Skills through the real binary: `skills list | show | check` (problems named by file
//! and line, exit codes), a skill's script run by the model through ExecuteCommand in
//! the sandbox while writing into the skills folder is refused, and a skill the model
//! writes with GenerateSkill listed by `skills list`; the chat's `/skills` and `/verbose`.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod sandbox_support;

use std::path::Path;

use cli::outcome as smallebot;
use cli::{chat_typing, text};
use sandbox_support::landlock_or_skip;
use serde_json::json;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec, message_text};

/// A home with the agent's compatibility fixtures in `skills/`.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../agent/tests/skills_fixtures");
    let copied = std::process::Command::new("cp")
        .arg("-R")
        .arg(&fixtures)
        .arg(home.path().join("skills"))
        .status()
        .unwrap();
    assert!(copied.success());
    home
}

#[tokio::test]
async fn list_show_and_check_name_problems_and_exit_non_zero_on_errors() {
    let home = home();
    let broken = home.path().join("skills/half-done");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(
        broken.join("SKILL.md"),
        "---\nname: half-done\n---\nNo description.\n",
    )
    .unwrap();
    let (ok, out, _) = smallebot(home.path(), &["skills", "list"]).await;
    assert!(ok);
    assert!(
        out.contains("csv-summary     shared  Summarizes a CSV file: counts its rows"),
        "{out}"
    );
    assert!(
        out.contains("half-done       shared  (not loaded)"),
        "{out}"
    );
    assert!(
        out.contains("problem: ") && out.contains("half-done/SKILL.md: 'description' is missing"),
        "{out}"
    );

    let (ok, out, _) = smallebot(home.path(), &["skills", "show", "release-notes"]).await;
    assert!(ok);
    for part in [
        "release-notes (shared) in ",
        "license: Apache-2.0",
        "metadata: category = writing",
        "allowed-tools: Bash(git log:*) Read Write (shown only: grants nothing",
        "files: assets/template.md, references/style.md",
        "# Release notes",
    ] {
        assert!(out.contains(part), "{part}\n{out}");
    }
    let (ok, _, err) = smallebot(home.path(), &["skills", "show", "nothing-here"]).await;
    assert!(
        !ok && err.contains("no skill is called 'nothing-here'"),
        "{err}"
    );

    let folder = home.path().join("skills/unit-converter");
    let (ok, out, _) = smallebot(home.path(), &["skills", "check", folder.to_str().unwrap()]).await;
    assert!(
        ok && out.contains("is a valid skill named 'unit-converter'"),
        "{out}"
    );
    let (ok, _, err) = smallebot(home.path(), &["skills", "check", broken.to_str().unwrap()]).await;
    assert!(!ok, "{err}");
    assert!(
        err.contains("half-done/SKILL.md: 'description' is missing"),
        "{err}"
    );
    assert!(err.contains("does not load as a skill"), "{err}");
}

#[tokio::test]
async fn a_skill_script_runs_in_the_sandbox_which_refuses_writes_to_the_skills_folder() {
    if !landlock_or_skip() {
        return;
    }
    let home = home();
    let skills = std::path::absolute(home.path().join("skills")).unwrap();
    let script = skills.join("unit-converter/scripts/convert.sh");
    let evil = skills.join("unit-converter/planted.txt");
    let server = TestModel::start().await.unwrap();
    cli::answer_titles(&server);
    server.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "c1",
            "ExecuteCommand",
            json!({"command": format!("sh {} 5 parsecs", script.display())}).to_string(),
        )]),
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "c2",
            "ExecuteCommand",
            json!({"command": format!("cp {} {}", script.display(), evil.display())}).to_string(),
        )]),
        ScriptedResponse::text("done"),
    ]);
    let out = cli::smallebot(home.path(), Some(&server.base_url()))
        .args(["run", "convert five parsecs"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let results: Vec<String> = server
        .requests()
        .iter()
        .flat_map(|r| r.messages().to_vec())
        .filter(|m| m["role"] == "tool")
        .map(|m| message_text(&m))
        .collect();
    assert!(
        results
            .iter()
            .any(|r| r.contains("unit-converter ran: 5 parsecs")),
        "{results:#?}"
    );
    assert!(
        results.iter().any(|r| r.contains("Permission denied")),
        "{results:#?}"
    );
    assert!(!evil.exists(), "the command wrote into the skills folder");
}

#[tokio::test]
async fn a_skill_the_model_generates_is_listed_by_skills_list() {
    let home = home();
    let server = TestModel::start().await.unwrap();
    cli::answer_titles(&server);
    server.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "g1",
            "GenerateSkill",
            json!({"name": "weekly-report", "description": "Writes the weekly status report. Use on Fridays.",
                   "body": "List what was done and what is next."})
            .to_string(),
        )]),
        ScriptedResponse::text("saved"),
    ]);
    let out = cli::smallebot(home.path(), Some(&server.base_url()))
        .args(["run", "remember how to write the report"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let (ok, list, _) = smallebot(home.path(), &["skills", "list"]).await;
    assert!(ok);
    assert!(
        list.contains("weekly-report   shared  Writes the weekly status report. Use on Fridays."),
        "{list}"
    );
}

/// `smallebot chat` with `typed` as its standard input, run to its exit.

#[tokio::test]
async fn slash_skills_in_chat_lists_the_skills() {
    let home = home();
    let server = TestModel::start().await.unwrap();
    let out = chat_typing(home.path(), &server, b"/skills\n/quit\n").await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains(
            "release-notes   shared  Drafts release notes from a list of merged changes."
        ),
        "{stdout}"
    );
    assert_eq!(server.request_count(), 0);
}

#[tokio::test]
async fn slash_verbose_says_each_setting_in_one_sentence() {
    let home = home();
    let server = TestModel::start().await.unwrap();
    let out = chat_typing(home.path(), &server, b"/verbose on\n/verbose off\n/quit\n").await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("tool results: printed whole as each call ends (/verbose off folds them)"),
        "{stdout}"
    );
    // One sentence, not a source line's indentation in the middle of it.
    assert!(
        stdout.contains(
            "tool results: folded into each call's line (/show N expands one; /verbose on \
             prints them all)"
        ),
        "{stdout}"
    );
}
