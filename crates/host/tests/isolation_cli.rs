//! What a turn's children get and what they leave, through the real binary: the
//! environment of a command run by ExecuteCommand and of an MCP stdio server is the
//! allow-list (a canary and `SMALLEBOT_DATABASE_URL` of the host's environment never
//! reach them; agent.json's `pass` and `set` and the server's `env` do), and an MCP
//! server started through a wrapper is gone with everything it started once `run`
//! has exited. This test binary is also the MCP server, hence `harness = false`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod cli;

use std::path::Path;
use std::time::{Duration, Instant};

use cli::text;
use serde_json::json;
use smallebot_sandbox::probe;
use smallebot_testkit::mcp::{SERVE_ENV, TestFn, test_main};
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec, message_text};

fn main() {
    let tests: [(&str, TestFn); 2] = [
        (
            "only_the_allow_list_reaches_commands_and_mcp_servers",
            || Box::pin(only_the_allow_list_reaches_commands_and_mcp_servers()),
        ),
        (
            "a_wrapped_mcp_server_and_its_child_are_gone_after_run",
            || Box::pin(a_wrapped_mcp_server_and_its_child_are_gone_after_run()),
        ),
    ];
    test_main(&tests);
}

/// In the host's environment only: neither may reach a child.
const CANARY: (&str, &str) = ("SMALLEBOT_TEST_CANARY", "canary-7c1e");

/// The result of the call `id` as the model read it.
fn result_of(requests: &[RecordedRequest], id: &str) -> String {
    requests
        .iter()
        .flat_map(RecordedRequest::messages)
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
        .map(message_text)
        .unwrap_or_else(|| panic!("no result of {id} reached the model"))
}

/// One `run` of a turn that runs `env` through ExecuteCommand and asks the MCP
/// server for its environment; returns both results.
async fn environments(home: &Path) -> (String, String) {
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.push_all([
        ScriptedResponse::tool_calls([
            ToolCallSpec::new(
                "cmd",
                "ExecuteCommand",
                json!({"command": "env"}).to_string(),
            ),
            ToolCallSpec::new("mcp", "test__env", "{}"),
        ]),
        ScriptedResponse::text("done"),
    ]);
    // A database of its own, named by the variable a command must never see.
    let database = home.join("secret-canary.db");
    let out = cli::smallebot(home, Some(&model.base_url()))
        .args(["run", "show me the environments"])
        .env(CANARY.0, CANARY.1)
        .env("SMALLEBOT_DATABASE_URL", &database)
        .env("SMALLEBOT_TEST_PASSED", "passed-on-purpose")
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        database.exists(),
        "the host used the database of the variable"
    );
    let requests = model.requests();
    (result_of(&requests, "cmd"), result_of(&requests, "mcp"))
}

async fn only_the_allow_list_reaches_commands_and_mcp_servers() {
    // Unconfined, and in the sandbox where this kernel has one.
    let mut modes = vec![json!({"sandbox": "off"})];
    if probe().is_available() {
        modes.push(json!({}));
    }
    for terminal in modes {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join("terminal.json"), terminal.to_string()).unwrap();
        std::fs::write(
            home.path().join("agent.json"),
            json!({
                "toolResultMaxLength": 10000,
                "commandEnvironment": {
                    "pass": ["SMALLEBOT_TEST_PASSED"],
                    "set": {"SMALLEBOT_TEST_SET": "set-in-agent-json"}
                }
            })
            .to_string(),
        )
        .unwrap();
        let server = json!({"mcpServers": {"test": {
            "command": std::env::current_exe().unwrap(),
            "env": {SERVE_ENV: "1", "SMALLEBOT_TEST_SERVER_ENV": "from-mcp-json"}
        }}});
        std::fs::write(home.path().join("mcp.json"), server.to_string()).unwrap();

        let (command, mcp) = environments(home.path()).await;
        for (who, seen) in [("the command", &command), ("the MCP server", &mcp)] {
            assert!(!seen.contains(CANARY.1), "{who} saw the canary: {seen}");
            assert!(
                !seen.contains("SMALLEBOT_DATABASE_URL") && !seen.contains("secret-canary"),
                "{who} saw the database URL: {seen}"
            );
            assert!(
                !seen.contains("OPENAI_"),
                "{who} saw the model settings: {seen}"
            );
            assert!(seen.contains("PATH="), "{who} has no PATH: {seen}");
            assert!(seen.contains("USER=tester"), "{who} has no USER: {seen}");
        }
        assert!(
            command.contains("SMALLEBOT_TEST_PASSED=passed-on-purpose"),
            "{terminal}: {command}"
        );
        assert!(
            command.contains("SMALLEBOT_TEST_SET=set-in-agent-json"),
            "{terminal}: {command}"
        );
        assert!(
            mcp.contains("SMALLEBOT_TEST_SERVER_ENV=from-mcp-json"),
            "{mcp}"
        );
        assert!(!mcp.contains("SMALLEBOT_TEST_PASSED"), "{mcp}");
        if terminal == json!({"sandbox": "off"}) {
            let workspace = home.path().join("workspace");
            let home_line = format!(
                "HOME={}",
                std::path::absolute(&workspace).unwrap().display()
            );
            assert!(command.contains(&home_line), "{command}");
        } else {
            assert!(command.contains("HOME=/"), "{command}");
            assert!(command.contains("smallebot-cmd-"), "{command}");
        }
    }
}

fn alive(pid: u32) -> bool {
    // A zombie is gone for our purpose (its parent has not reaped it yet).
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| !s.trim_start().starts_with('Z'))
    })
}

fn read_pid(file: &Path) -> u32 {
    std::fs::read_to_string(file)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

async fn a_wrapped_mcp_server_and_its_child_are_gone_after_run() {
    let home = tempfile::tempdir().unwrap();
    let wrapper_pid = home.path().join("wrapper.pid");
    let child_pid = home.path().join("child.pid");
    // bash starts a child of its own, then the server (not exec'd: bash stays).
    let script = format!(
        "echo $$ > {wrapper}; sleep 1000 & echo $! > {child}; \"$0\"",
        wrapper = wrapper_pid.display(),
        child = child_pid.display(),
    );
    let server = json!({"mcpServers": {"test": {
        "command": "/bin/bash",
        "args": ["-c", script, std::env::current_exe().unwrap()],
        "env": {SERVE_ENV: "1"}
    }}});
    std::fs::write(home.path().join("mcp.json"), server.to_string()).unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            "c1",
            "test__echo",
            json!({"text": "hello"}).to_string(),
        )]),
        ScriptedResponse::text("done"),
    ]);
    let out = cli::smallebot(home.path(), Some(&model.base_url()))
        .args(["run", "call the server"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(result_of(&model.requests(), "c1"), "echo: hello");
    let (wrapper, child) = (read_pid(&wrapper_pid), read_pid(&child_pid));
    // The host has exited: nothing it started may be left, however briefly.
    let deadline = Instant::now() + Duration::from_secs(2);
    while alive(wrapper) || alive(child) {
        if Instant::now() >= deadline {
            let left = format!(
                "left after run: wrapper {wrapper} alive {}, its child {child} alive {}",
                alive(wrapper),
                alive(child)
            );
            for pid in [wrapper, child] {
                let _ = std::process::Command::new("kill")
                    .args(["-9", &pid.to_string()])
                    .status();
            }
            panic!("{left}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
