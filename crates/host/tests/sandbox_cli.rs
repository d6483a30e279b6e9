//! The sandbox through the real binary: `chat` names the mode at start, and a command
//! the model runs in a turn is confined (the home's database is out of reach) and its
//! result names the sandbox; terminal.json's sandbox keys are checked at start.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod sandbox_support;

use std::process::Stdio;

use cli::text;
use sandbox_support::landlock_or_skip;
use serde_json::json;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec, message_text};
use tokio::io::AsyncWriteExt;

#[tokio::test]
async fn chat_names_the_sandbox_and_a_turns_command_runs_in_it() {
    if !landlock_or_skip() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("terminal.json"), r#"{"network": "deny"}"#).unwrap();
    let db = home.path().join("smallebot.db");
    let server = TestModel::start().await.unwrap();
    // The title is asked for beside the first turn.
    cli::answer_titles(&server);
    server.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "c1",
            "ExecuteCommand",
            json!({ "command": format!("wc -c {}; echo made > made.txt", db.display()) })
                .to_string(),
        )]),
        ScriptedResponse::text("done"),
    ]);
    let mut child = cli::smallebot(home.path(), Some(&server.base_url()))
        .arg("chat")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"check the database\n").await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("sandbox: workspace-write, network denied"),
        "{stdout}"
    );

    let requests = server.requests();
    let result = requests
        .iter()
        .flat_map(|r| r.messages())
        .find(|m| m["role"] == "tool")
        .map(message_text)
        .expect("the command's result reached the model");
    assert!(result.contains("Permission denied"), "{result}");
    assert!(
        result.contains("sandbox: workspace-write, network denied]"),
        "{result}"
    );
    // The workspace itself is writable.
    assert_eq!(
        std::fs::read_to_string(home.path().join("workspace/made.txt")).unwrap(),
        "made\n"
    );
}

#[tokio::test]
async fn a_bad_sandbox_setting_stops_the_start_naming_the_file() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("terminal.json"),
        r#"{"limits": {"memoryMb": 1}}"#,
    )
    .unwrap();
    let out = cli::smallebot(home.path(), Some("http://127.0.0.1:9"))
        .args(["run", "hello"])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("terminal.json"), "{stderr}");
    assert!(
        stderr.contains("limits.memoryMb: 1 is out of range; give 64..=1048576"),
        "{stderr}"
    );
}

/// As a user other than root the process limit is `RLIMIT_NPROC` on top of what the
/// user runs: a fork bomb in a turn's command stops there. As root, the binary runs as
/// `nobody` (through util-linux's `setpriv`) so that this path is taken.
#[tokio::test]
async fn a_fork_bomb_stops_at_the_process_limit_for_an_ordinary_user() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if !landlock_or_skip() {
        return;
    }
    const NOBODY: u32 = 65_534;
    let root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
    let base = if root {
        tempfile::Builder::new().tempdir_in("/tmp").unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    std::fs::set_permissions(base.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let home = base.path().join("home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(
        home.join("terminal.json"),
        r#"{"limits": {"processes": 16}, "commandTimeoutSeconds": 30}"#,
    )
    .unwrap();
    let binary = if root {
        let copy = base.path().join("smallebot");
        std::fs::copy(env!("CARGO_BIN_EXE_smallebot"), &copy).unwrap();
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
        for path in [home.clone(), home.join("terminal.json")] {
            std::os::unix::fs::chown(&path, Some(NOBODY), Some(NOBODY)).unwrap();
        }
        copy
    } else {
        std::path::PathBuf::from(env!("CARGO_BIN_EXE_smallebot"))
    };
    let server = TestModel::start().await.unwrap();
    let steps = std::sync::Mutex::new(std::collections::VecDeque::from([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "c1",
            "ExecuteCommand",
            json!({ "command": "while :; do sleep 30 & done" }).to_string(),
        )]),
        ScriptedResponse::text("stopped"),
    ]));
    // The title request may come first; it gets its own answer.
    server.respond_with(move |req| {
        if req.body["tools"].is_array() {
            steps
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or_else(|| ScriptedResponse::text("done"))
        } else {
            ScriptedResponse::text("A title")
        }
    });
    let command = || {
        let mut command = if root {
            let mut c = tokio::process::Command::new("setpriv");
            c.args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
                .arg(&binary);
            c
        } else {
            tokio::process::Command::new(&binary)
        };
        command
            .arg("--home")
            .arg(&home)
            .args(["run", "fork away"])
            .env_remove("SMALLEBOT_HOME")
            .env("HOME", &home)
            .env("OPENAI_BASE_URL", server.base_url())
            .env("SMALLEBOT_MODEL", "scripted")
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::null());
        command
    };
    // The copy was just written: a child another test of this process forked meanwhile
    // may still hold it open for writing (ETXTBSY) until it execs; then try again.
    let mut attempts = 0;
    let (started, out) = loop {
        let started = std::time::Instant::now();
        let out = command().output().await.unwrap();
        attempts += 1;
        if attempts < 20 && !out.status.success() && text(&out.stderr).contains("Text file busy") {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            continue;
        }
        break (started, out);
    };
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(started.elapsed() < std::time::Duration::from_secs(25));
    let result = server
        .requests()
        .iter()
        .flat_map(|r| r.messages())
        .find(|m| m["role"] == "tool")
        .map(message_text)
        .expect("the command's result reached the model");
    assert!(result.contains("fork"), "{result}");
    assert!(!result.contains("timed out"), "{result}");
}
