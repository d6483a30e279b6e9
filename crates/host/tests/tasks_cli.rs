//! Issue 5 through the real binary: a scripted turn plans with the task tools, writes
//! files with the real workspace and shell tools, and the plan shows in `/tasks`
//! (snapshot) and `conversations show`; `conversations delete` removes the task file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use cli::text;

use std::path::Path;
use std::process::{Output, Stdio};

use serde_json::json;
use smallebot_application::pipeline::TITLE_INSTRUCTION;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec, message_text};
use tokio::io::AsyncWriteExt;

fn command(home: &Path, base_url: &str) -> tokio::process::Command {
    cli::smallebot(home, Some(base_url))
}

async fn run(home: &Path, base_url: &str, args: &[&str]) -> Output {
    let out = command(home, base_url).args(args).output().await.unwrap();
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    out
}

/// `smallebot chat` with `input` typed on standard input.
async fn chat(home: &Path, base_url: &str, args: &[&str], input: &str) -> String {
    let mut child = command(home, base_url)
        .arg("chat")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

fn is_title(req: &RecordedRequest) -> bool {
    req.messages()
        .iter()
        .any(|m| message_text(m).contains(TITLE_INSTRUCTION))
}

fn step(id: &str, tool: &str, args: serde_json::Value) -> ScriptedResponse {
    ScriptedResponse::tool_calls([ToolCallSpec::new(id, tool, args.to_string())])
}

#[tokio::test]
async fn the_plan_shows_in_tasks_and_show_and_goes_with_the_conversation() {
    let home = tempfile::tempdir().unwrap();
    let ws = home.path().join("workspace");
    std::fs::create_dir_all(&ws).unwrap();
    let ws = ws.to_string_lossy().into_owned();
    let server = TestModel::start().await.unwrap();
    // Turn steps in order; the title (asked for beside the turn) answered on its own.
    let steps = std::sync::Mutex::new(std::collections::VecDeque::from([
        step("c1", "AddTask", json!({"title": "Write notes"})),
        step(
            "c2",
            "AddTask",
            json!({"title": "Review", "dependsOn": ["1"]}),
        ),
        step("c3", "StartTask", json!({"taskId": "1"})),
        step(
            "c4",
            "WriteFile",
            json!({"path": "notes.md", "content": "# Notes\n"}),
        ),
        step(
            "c5",
            "ExecuteCommand",
            json!({"command": "echo hi > out.txt 2>/dev/null && cat out.txt | tee -a log.txt"}),
        ),
        step("c6", "GetCurrentTime", json!({})),
        step(
            "c7",
            "CompleteTask",
            json!({"taskId": "1", "notes": "Wrote the notes"}),
        ),
        ScriptedResponse::text("Done."),
    ]));
    server.respond_with(move |req| {
        if is_title(req) {
            ScriptedResponse::text("Notes plan")
        } else {
            steps.lock().unwrap().pop_front().unwrap()
        }
    });
    let url = server.base_url();
    run(home.path(), &url, &["run", "Write the notes"]).await;
    assert_eq!(
        std::fs::read_to_string(home.path().join("workspace/out.txt")).unwrap(),
        "hi\n"
    );
    let listed = text(
        &run(home.path(), &url, &["conversations", "list"])
            .await
            .stdout,
    );
    let id = listed.split_whitespace().next().unwrap().to_owned();

    let plan = format!(
        "Plan:\n\
         Progress: 1/2 (50.0%)\n  \
         1: [✓] Write notes\n      \
         Notes: Wrote the notes\n      \
         Tools: WriteFile (1 call), ExecuteCommand (1 call), GetCurrentTime (1 call)\n      \
         Files: {ws}/notes.md, {ws}/out.txt, {ws}/log.txt\n  \
         2: [ ] Review (depends on: [1])"
    );
    // Every request after the first AddTask carried the plan as it was then.
    let requests: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| !is_title(r))
        .collect();
    // The plan follows the newest message.
    let last_prompt = requests[7].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap();
    assert!(
        last_prompt.contains(&format!("# Task List\n{plan}")),
        "{last_prompt}"
    );
    // The system prompt says when and how to use the task tools; the plan is not in it.
    let system = requests[7].body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("# Task Tools\nThis conversation has a task list that is also your plan")
            && system.contains("AddTask")
            && !system.contains("# Task List\n"),
        "{system}"
    );

    // `/tasks` in the chat REPL: exactly the plan.
    let out = chat(
        home.path(),
        &url,
        &["--conversation", &id],
        "/tasks\n/quit\n",
    )
    .await;
    assert!(out.contains(&format!("› {plan}\n› ")), "{out}");
    let empty = chat(home.path(), &url, &["--new"], "/tasks\n/quit\n").await;
    assert!(empty.contains("› No tasks yet.\n› "), "{empty}");

    // `conversations show` ends with the plan.
    let shown = text(
        &run(home.path(), &url, &["conversations", "show", &id])
            .await
            .stdout,
    );
    assert!(shown.ends_with(&format!("\n\n{plan}\n")), "{shown}");

    // Deleting the conversation deletes its task file.
    let file = home
        .path()
        .join("tasks")
        .join(format!("{}.json", id.replace('-', "")));
    assert!(file.exists());
    run(home.path(), &url, &["conversations", "delete", &id]).await;
    assert!(!file.exists());
}
