//! `smallebot run`, `compact` and restart recovery through the real binary against the
//! scripted testkit model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use cli::text;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use serde_json::Value;
use smallebot_testkit::scenarios::demo_responder;
use smallebot_testkit::{Gate, RecordedRequest, ScriptedResponse, TestModel};

fn command(home: &Path, base_url: Option<&str>) -> tokio::process::Command {
    cli::smallebot(home, base_url)
}

async fn run(home: &Path, base_url: Option<&str>, args: &[&str]) -> Output {
    command(home, base_url).args(args).output().await.unwrap()
}

fn json_lines(out: &Output) -> Vec<Value> {
    text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l:?}: {e}")))
        .collect()
}

async fn first_conversation_id(home: &Path) -> String {
    let out = run(home, None, &["conversations", "list"]).await;
    text(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn run_json_prints_one_event_per_line_ending_in_turn_completed() {
    let home = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    // The demo conversation, its answer held until the title is seen stored: `run`
    // gives up a title still being written when the turn ends first.
    let answer_held = Gate::new();
    let held = answer_held.clone();
    let demo = demo_responder(Duration::ZERO);
    server.respond_with(move |req| {
        let response = demo(req);
        if req.last_role() == Some("tool") {
            response.hold_until(&held)
        } else {
            response
        }
    });
    let mut child = command(home.path(), Some(&server.base_url()))
        .args(["run", "--json", "What time is it?"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The title is asked for beside the turn and stored while it runs.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let list = run(home.path(), None, &["conversations", "list"]).await;
        let listed = text(&list.stdout);
        if listed.contains("Time check") {
            break;
        }
        if child.try_wait().unwrap().is_some() {
            let out = child.wait_with_output().await.unwrap();
            panic!(
                "run ended before its title was seen: {}\n{}",
                out.status,
                text(&out.stderr)
            );
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no title while the turn ran: {listed}{}; requests: {}",
            text(&list.stderr),
            server.requests().len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    answer_held.open();
    let out = child.wait_with_output().await.unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let events = json_lines(&out);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert!(types.contains(&"TurnStarted"));
    assert!(types.contains(&"ToolCallStarted") && types.contains(&"ToolCallCompleted"));
    assert!(types.contains(&"ContextUsage"));
    assert_eq!(types.last(), Some(&"TurnCompleted"));
    let tool = events
        .iter()
        .find(|e| e["type"] == "ToolCallStarted")
        .unwrap();
    assert_eq!(tool["tool_name"], "GetCurrentTime");
}

#[tokio::test]
async fn without_an_endpoint_run_exits_2_and_says_how_to_configure_one() {
    let home = tempfile::tempdir().unwrap();
    let out = run(home.path(), None, &["run", "hi"]).await;
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("error: No model endpoint is configured."),
        "{err}"
    );
    assert_eq!(
        err.matches("No model endpoint is configured").count(),
        1,
        "said once: {err}"
    );
    assert!(
        err.contains("OPENAI_API_KEY")
            && err.contains("models.json")
            && err.contains("ollama pull")
            && !err.contains("cargo xtask"),
        "{err}"
    );
}

#[tokio::test]
async fn an_invalid_agent_json_is_an_error_naming_the_file() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("agent.json"),
        "{\n  \"toolResultMaxLength\": oops\n}",
    )
    .unwrap();
    let out = run(home.path(), Some("http://127.0.0.1:9/v1"), &["run", "hi"]).await;
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("agent.json:2:"), "{err}");
}

#[tokio::test]
async fn a_killed_turn_is_interrupted_after_restart_and_its_message_kept() {
    let home = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    server.push(ScriptedResponse::text("never arrives").delay_headers(Duration::from_secs(60)));
    let mut child = command(home.path(), Some(&server.base_url()))
        .args(["run", "remember the walrus"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    server
        .wait_for_requests(1, Duration::from_secs(30))
        .await
        .unwrap();
    child.kill().await.unwrap();
    child.wait().await.unwrap();
    // The next start (here a listing) finds the dead process's turn and marks it.
    let listed = run(home.path(), None, &["conversations", "list"]).await;
    assert!(
        text(&listed.stderr).contains("1 turn(s) were interrupted"),
        "{}",
        text(&listed.stderr)
    );
    let id = text(&listed.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    server.push(ScriptedResponse::text("back again"));
    let out = run(
        home.path(),
        Some(&server.base_url()),
        &["run", "--conversation", &id, "are you back?"],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(
        &run(home.path(), None, &["conversations", "show", &id])
            .await
            .stdout,
    );
    assert!(shown.contains("turn 1 · interrupted"), "{shown}");
    assert!(shown.contains("USER: remember the walrus"), "{shown}");
    assert!(shown.contains("ASSISTANT: back again"), "{shown}");
}

fn is_summary(r: &RecordedRequest) -> bool {
    r.last_user_text()
        .is_some_and(|t| t.contains("## Conversation to summarize"))
}

#[tokio::test]
async fn compact_from_the_shell_and_compression_events_in_run_json() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("models.json"),
        r#"{"default": "tiny", "models": [{"id": "tiny", "baseUrl": "BASE", "model": "scripted", "contextWindow": 5500}]}"#,
    )
    .unwrap();
    let server = TestModel::start().await.unwrap();
    let models = std::fs::read_to_string(home.path().join("models.json"))
        .unwrap()
        .replace("BASE", &server.base_url());
    std::fs::write(home.path().join("models.json"), models).unwrap();
    server.respond_with(|req| {
        if is_summary(req) {
            ScriptedResponse::text("SUMMARY of the early turns")
        } else if req
            .last_user_text()
            .is_some_and(|t| t.starts_with("Generate a short title"))
        {
            ScriptedResponse::text("Long chat")
        } else {
            ScriptedResponse::text("ok")
        }
    });
    let long = "words ".repeat(300);
    let first = run(home.path(), None, &["run", &format!("first {long}")]).await;
    assert!(first.status.success(), "{}", text(&first.stderr));
    let id = first_conversation_id(home.path()).await;
    let out = run(home.path(), None, &["compact", &id]).await;
    assert!(!out.status.success(), "nothing to summarize yet");
    assert!(
        text(&out.stderr).contains("nothing to summarize"),
        "{}",
        text(&out.stderr)
    );

    let mut saw_events = false;
    for i in 0..12 {
        let out = run(
            home.path(),
            None,
            &[
                "run",
                "--json",
                "--conversation",
                &id,
                &format!("turn {i} {long}"),
            ],
        )
        .await;
        assert!(out.status.success(), "{}", text(&out.stderr));
        let types: Vec<String> = json_lines(&out)
            .iter()
            .map(|e| e["type"].as_str().unwrap().to_owned())
            .collect();
        if types.iter().any(|t| t == "CompressionStarted") {
            assert!(types.iter().any(|t| t == "CompressionCompleted"));
            saw_events = true;
            break;
        }
    }
    assert!(saw_events, "an automatic compression printed its events");

    for i in 0..3 {
        run(
            home.path(),
            None,
            &["run", "--conversation", &id, &format!("more {i}")],
        )
        .await;
    }
    let out = run(
        home.path(),
        None,
        &["compact", &id, "--focus", "the API design"],
    )
    .await;
    assert!(
        out.status.success(),
        "{} {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("summarized"));
    let summary_request = server.requests().into_iter().rfind(is_summary).unwrap();
    assert!(
        summary_request
            .last_user_text()
            .unwrap()
            .contains("the API design")
    );
    let shown = text(
        &run(home.path(), None, &["conversations", "show", &id])
            .await
            .stdout,
    );
    assert!(shown.contains("[summarized] USER: first"), "{shown}");
}
