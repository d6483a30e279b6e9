//! Agent definitions through the real binary: `agents list | show | check` (problems
//! named by file and line, exit codes), the chat's `/agents` and `GET /api/agents`.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use cli::outcome as smallebot;
use cli::text;
use serde_json::{Value, json};
use smallebot_testkit::TestModel;

/// A home with a valid and a broken agent file in `agents/`.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let agents = home.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(
        agents.join("reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews a change for mistakes.\ntools: ReadFile, ListDirectory\nmodel: inherit\nsandbox: read-only\nmaxToolSteps: 8\n---\nYou review changes.\n",
    )
    .unwrap();
    std::fs::write(
        agents.join("broken.md"),
        "---\nname: broken\ndescription: Half done.\nsandbox: everything\n---\nBody.\n",
    )
    .unwrap();
    home
}

#[tokio::test]
async fn list_show_and_check_name_problems_and_exit_non_zero_on_errors() {
    let home = home();
    let broken_file = home.path().join("agents/broken.md");
    let (ok, out, _) = smallebot(home.path(), &["agents", "list"]).await;
    assert!(ok);
    assert!(out.contains("broken    shared   (not loaded)"), "{out}");
    assert!(
        out.contains(&format!(
            "    problem: {}:4: 'sandbox' 'everything' is not a sandbox mode",
            broken_file.display()
        )),
        "{out}"
    );
    assert!(
        out.contains("general   builtin  A general-purpose agent"),
        "{out}"
    );
    assert!(
        out.contains("reviewer  shared   Reviews a change for mistakes."),
        "{out}"
    );

    let (ok, out, _) = smallebot(home.path(), &["agents", "show", "reviewer"]).await;
    assert!(ok);
    for part in [
        "reviewer (shared) ",
        "tools: ReadFile, ListDirectory\nmodel: inherit\nsandbox: read-only\nmaxToolSteps: 8\n",
        "\nYou review changes.",
    ] {
        assert!(out.contains(part), "{part}\n{out}");
    }
    let (ok, _, err) = smallebot(home.path(), &["agents", "show", "nobody"]).await;
    assert!(!ok && err.contains("no agent is called 'nobody'"), "{err}");

    let (ok, out, err) = smallebot(
        home.path(),
        &[
            "agents",
            "check",
            home.path().join("agents").to_str().unwrap(),
        ],
    )
    .await;
    assert!(!ok);
    assert!(out.contains("is a valid agent named 'reviewer'"), "{out}");
    assert!(err.contains("broken.md:4: 'sandbox' 'everything'"), "{err}");
    assert!(err.contains("1 of 2 agent file(s)"), "{err}");
    let reviewer = home.path().join("agents/reviewer.md");
    let (ok, _, _) = smallebot(
        home.path(),
        &["agents", "check", reviewer.to_str().unwrap()],
    )
    .await;
    assert!(ok);
    let (ok, _, err) = smallebot(home.path(), &["agents", "check", "/no/such/agents"]).await;
    assert!(
        !ok && err.contains("/no/such/agents does not exist"),
        "{err}"
    );
}

#[tokio::test]
async fn slash_agents_in_chat_lists_the_agents() {
    let home = home();
    let server = TestModel::start().await.unwrap();
    let out = cli::chat_typing(home.path(), &server, b"/agents\n/quit\n").await;
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("reviewer  shared   Reviews a change for mistakes."),
        "{stdout}"
    );
    assert!(stdout.contains("broken.md:4: 'sandbox'"), "{stdout}");
    assert_eq!(server.request_count(), 0);
}

#[tokio::test]
async fn the_web_lists_the_agents_without_server_paths() {
    let home = home();
    let model = TestModel::start().await.unwrap();
    let mut serve = cli::smallebot(home.path(), Some(&model.base_url()));
    serve.args(["serve", "--addr", "127.0.0.1:0"]);
    serve.stdout(std::process::Stdio::piped());
    let (mut child, _, base) = cli::start_serving(serve).await;
    let list: Value = reqwest::get(format!("{base}/api/agents"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    child.kill().await.unwrap();
    let names: Vec<(&str, &str)> = list["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["source"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("broken", "shared"),
            ("general", "builtin"),
            ("reviewer", "shared")
        ]
    );
    assert_eq!(
        list["agents"][2],
        json!({"name": "reviewer", "description": "Reviews a change for mistakes.",
               "source": "shared", "location": "reviewer.md",
               "tools": ["ReadFile", "ListDirectory"], "model": "inherit",
               "sandbox": "read-only", "max_tool_steps": 8, "problems": []})
    );
    assert_eq!(
        list["agents"][0]["problems"][0]
            .as_str()
            .unwrap()
            .split(": '")
            .next(),
        Some("broken.md:4")
    );
    assert!(
        !list.to_string().contains(home.path().to_str().unwrap()),
        "{list}"
    );
}
