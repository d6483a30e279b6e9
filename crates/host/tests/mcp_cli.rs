//! MCP through the real binary: a testkit model calls an MCP tool of a stdio server
//! configured in mcp.json (this test binary, hence `harness = false`); the result is
//! stored, searchable and in the running task's tool history; `smallebot mcp list` and
//! `mcp tools`; an invalid mcp.json; and no server process outlives its host, even one
//! killed with SIGKILL.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod cli;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use cli::text;
use serde_json::json;
use smallebot_application::pipeline::TITLE_INSTRUCTION;
use smallebot_testkit::mcp::{PID_FILE_ENV, SERVE_ENV, TestFn, test_main};
use smallebot_testkit::reference_servers;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec, message_text};

fn main() {
    let tests: [(&str, TestFn); 5] = [
        ("a_turn_calls_an_mcp_tool_and_it_is_kept", || {
            Box::pin(a_turn_calls_an_mcp_tool_and_it_is_kept())
        }),
        ("mcp_list_and_tools_describe_the_servers", || {
            Box::pin(mcp_list_and_tools_describe_the_servers())
        }),
        (
            "an_invalid_mcp_json_stops_the_start_with_its_position",
            || Box::pin(an_invalid_mcp_json_stops_the_start_with_its_position()),
        ),
        ("a_killed_host_leaves_no_server_behind", || {
            Box::pin(a_killed_host_leaves_no_server_behind())
        }),
        (
            "mcp_list_of_the_reference_server_ends_without_warnings",
            || Box::pin(mcp_list_of_the_reference_server_ends_without_warnings()),
        ),
    ];
    test_main(&tests);
}

/// A home whose mcp.json starts this binary as the stdio server `test`, writing its
/// process id to the returned file.
fn home_with_server() -> (tempfile::TempDir, PathBuf) {
    let home = tempfile::tempdir().unwrap();
    let pid_file = home.path().join("server.pid");
    let config = json!({
        "mcpServers": {
            "test": {
                "command": std::env::current_exe().unwrap(),
                "env": {
                    SERVE_ENV: "1",
                    PID_FILE_ENV: pid_file,
                }
            }
        }
    });
    std::fs::write(home.path().join("mcp.json"), config.to_string()).unwrap();
    (home, pid_file)
}

/// Adds `servers` to the home's mcp.json.
fn add_servers(home: &Path, servers: &[(&str, serde_json::Value)]) {
    let file = home.join("mcp.json");
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for (name, server) in servers {
        config["mcpServers"][*name] = server.clone();
    }
    std::fs::write(&file, config.to_string()).unwrap();
}

fn alive(pid: u32) -> bool {
    // A zombie is gone for our purpose (its parent has not reaped it yet).
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .is_some_and(|s| !s.trim_start().starts_with('Z'))
    })
}

async fn wait_gone(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) {
        assert!(
            Instant::now() < deadline,
            "the MCP server {pid} outlived its host"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn read_pid(file: &Path) -> u32 {
    std::fs::read_to_string(file)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn step(id: &str, tool: &str, args: serde_json::Value) -> ScriptedResponse {
    ScriptedResponse::tool_calls([ToolCallSpec::new(id, tool, args.to_string())])
}

async fn a_turn_calls_an_mcp_tool_and_it_is_kept() {
    let (home, pid_file) = home_with_server();
    add_servers(
        home.path(),
        &[("broken", json!({"command": "/nonexistent/server"}))],
    );
    let server = TestModel::start().await.unwrap();
    let steps = std::sync::Mutex::new(std::collections::VecDeque::from([
        step("c1", "AddTask", json!({"title": "Ask the server"})),
        step("c2", "StartTask", json!({"taskId": "1"})),
        step("c3", "test__echo", json!({"text": "zebrafish from mcp"})),
        ScriptedResponse::text("The server said it."),
    ]));
    server.respond_with(move |req| {
        let title = req
            .messages()
            .iter()
            .any(|m| message_text(m).contains(TITLE_INSTRUCTION));
        if title {
            ScriptedResponse::text("MCP talk")
        } else {
            steps.lock().unwrap().pop_front().unwrap()
        }
    });
    let url = server.base_url();
    let out = cli::smallebot(home.path(), Some(&url))
        .args(["run", "ask the server"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The server that did not start is said once, as the turn's warning.
    let stderr = text(&out.stderr);
    assert_eq!(
        stderr
            .matches("MCP server 'broken' is not available")
            .count(),
        1,
        "{stderr}"
    );
    // The model was offered the tool with its schema, and read its result.
    let requests = server.requests();
    // The title request may come first: it offers no tools.
    let turn = requests
        .iter()
        .find(|r| r.body["tools"].is_array())
        .expect("a request of the turn");
    let tools = &turn.body["tools"];
    let echo = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "test__echo")
        .expect("test__echo offered");
    assert_eq!(echo["function"]["parameters"]["required"], json!(["text"]));
    let result = requests
        .iter()
        .flat_map(|r| r.messages())
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "c3")
        .map(message_text)
        .unwrap_or_else(|| {
            panic!(
                "no result of c3 reached the model: {:#?}\nstderr: {}",
                requests.iter().map(|r| r.messages()).collect::<Vec<_>>(),
                text(&out.stderr)
            )
        });
    // The newest message carries the plan after it (what changes between requests
    // comes last, for the server's prompt cache); the result itself is the server's.
    let (answer, plan) = result
        .split_once("\n\n# Task List\n")
        .unwrap_or((result.as_str(), ""));
    assert_eq!(answer, "echo: zebrafish from mcp", "{result}");
    assert!(
        plan.is_empty() || plan.contains("test__echo (1 call)"),
        "{result}"
    );
    // The host is gone, and so is its server.
    wait_gone(read_pid(&pid_file)).await;

    // Stored and searchable.
    let found = cli::smallebot(home.path(), None)
        .args(["conversations", "search", "zebrafish"])
        .output()
        .await
        .unwrap();
    assert!(
        text(&found.stdout).contains("zebrafish from mcp"),
        "{}",
        text(&found.stdout)
    );
    // In the task's tool history.
    let tasks: Vec<_> = std::fs::read_dir(home.path().join("tasks"))
        .unwrap()
        .flatten()
        .collect();
    let list = std::fs::read_to_string(tasks[0].path()).unwrap();
    assert!(list.contains("test__echo"), "{list}");
}

/// The reference server announces a changed tool list right after it starts; the
/// listing that notice asks for may meet the connection closing as `mcp list` and
/// `mcp tools` end. That is no warning.
async fn mcp_list_of_the_reference_server_ends_without_warnings() {
    let Some(server) = reference_servers::everything("mcp list of the reference server") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let config = json!({
        "mcpServers": { "everything": { "command": server.program, "args": server.args } }
    });
    std::fs::write(home.path().join("mcp.json"), config.to_string()).unwrap();
    for command in ["list", "tools"] {
        let out = cli::smallebot(home.path(), None)
            .args(["mcp", command])
            .output()
            .await
            .unwrap();
        let errors = text(&out.stderr);
        assert!(out.status.success(), "mcp {command}: {errors}");
        assert!(!errors.contains("WARN"), "mcp {command}: {errors}");
        assert!(text(&out.stdout).contains("everything"), "mcp {command}");
    }
}

async fn mcp_list_and_tools_describe_the_servers() {
    let (home, pid_file) = home_with_server();
    add_servers(
        home.path(),
        &[
            ("broken", json!({"command": "/nonexistent/server"})),
            (
                "off",
                json!({"command": "/nonexistent/server", "enabled": false}),
            ),
        ],
    );

    // A pinned tool no server offers is said once; one offered is not.
    std::fs::write(
        home.path().join("agent.json"),
        json!({"mcp": {"pinnedTools": ["mcp__test__echo", "mcp__test__nope"]}}).to_string(),
    )
    .unwrap();
    let out = cli::smallebot(home.path(), None)
        .args(["mcp", "list"])
        .output()
        .await
        .unwrap();
    let listed = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let errors = text(&out.stderr);
    assert_eq!(
        errors
            .matches("mcp.pinnedTools: \"mcp__test__nope\" is offered by no MCP server")
            .count(),
        1,
        "{errors}"
    );
    assert!(!errors.contains("\"mcp__test__echo\""), "{errors}");
    assert!(listed.contains("test  running  11 tool(s)"), "{listed}");
    assert!(listed.contains("off  disabled  0 tool(s)"), "{listed}");
    let broken = listed.lines().find(|l| l.starts_with("broken")).unwrap();
    assert!(
        broken.starts_with("broken  not running  0 tool(s)  last error: ")
            && broken.contains("could not run /nonexistent/server (No such file"),
        "{listed}"
    );
    assert!(
        text(&out.stderr).contains("warning: MCP server 'broken' is not available"),
        "{}",
        text(&out.stderr)
    );
    wait_gone(read_pid(&pid_file)).await;

    let out = cli::smallebot(home.path(), None)
        .args(["mcp", "tools", "test"])
        .output()
        .await
        .unwrap();
    let tools = text(&out.stdout);
    assert!(
        tools.contains("test__echo  [MCP server test] Echo the text back"),
        "{tools}"
    );
    assert_eq!(tools.lines().count(), 11, "{tools}");

    let out = cli::smallebot(home.path(), None)
        .args(["mcp", "tools", "nope"])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("no MCP server named 'nope'"),
        "{}",
        text(&out.stderr)
    );
}

async fn an_invalid_mcp_json_stops_the_start_with_its_position() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("mcp.json"),
        "{\n  \"s\": {\"comand\": \"x\"}\n}\n",
    )
    .unwrap();
    let out = cli::smallebot(home.path(), Some("http://127.0.0.1:9"))
        .args(["run", "hi"])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("mcp.json:2:"), "{stderr}");
    assert!(stderr.contains("did you mean \"command\""), "{stderr}");
}

async fn a_killed_host_leaves_no_server_behind() {
    let (home, pid_file) = home_with_server();
    let model = TestModel::start().await.unwrap();
    let mut chat = cli::smallebot(home.path(), Some(&model.base_url()))
        .arg("chat")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !pid_file.exists() {
        assert!(Instant::now() < deadline, "the MCP server did not start");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let server = read_pid(&pid_file);
    assert!(alive(server));
    chat.start_kill().unwrap();
    chat.wait().await.unwrap();
    wait_gone(server).await;
}
