//! Logs through the real binary: `serve --log-format json` writes one JSON object per
//! line carrying the request's and the turn's ids; a message's text reaches the log
//! only with `--log-content`; a warning of `run` reaches standard error while standard
//! output keeps only the answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use smallebot_testkit::{ScriptedResponse, TestModel};

const MESSAGE: &str = "the words quartz-7311 in a message";
const ANSWER: &str = "an answer saying basalt-2290";

/// Serves `home` with `extra` arguments and its log in `log`, sends [`MESSAGE`], waits
/// for [`ANSWER`] to be stored and stops the server; returns the log's lines.
async fn serve_one_turn(home: &Path, extra: &[&str]) -> Vec<String> {
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.push(ScriptedResponse::text(ANSWER));
    let log = home.join("serve.log");
    let mut serve = cli::smallebot(home, Some(&model.base_url()));
    serve
        .args(["serve", "--addr", "127.0.0.1:0", "--log-format", "json"])
        .args(extra)
        .stderr(Stdio::from(std::fs::File::create(&log).unwrap()));
    let (mut child, _banner, base) = cli::start_serving(serve).await;
    let http = reqwest::Client::new();
    let id = &cli::new_conversation(&http, &base).await;
    let started = http
        .post(format!("{base}/api/conversations/{id}/messages"))
        .json(&serde_json::json!({"text": MESSAGE}))
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let text = std::fs::read_to_string(&log).unwrap();
        // The message's request line is written once its response is done, which may be
        // after a quick turn ended: wait for both before stopping the server.
        let answered = text
            .lines()
            .any(|l| l.contains("\"message\":\"request\"") && l.contains("/messages\""));
        if text.contains("\"turn ended\"") && answered {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no turn end or no request line in {text}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    child.start_kill().unwrap();
    child.wait().await.unwrap();
    std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The value of `field` in the spans an event was logged in, innermost last.
fn span_field<'a>(event: &'a Value, field: &str) -> Option<&'a str> {
    event["spans"]
        .as_array()?
        .iter()
        .find_map(|span| span[field].as_str())
}

fn events(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let event: Value = serde_json::from_str(line)
                .unwrap_or_else(|err| panic!("not one JSON object: {line:?}: {err}"));
            assert!(event.is_object(), "{line}");
            event
        })
        .collect()
}

#[tokio::test]
async fn serve_logs_json_lines_with_request_and_turn_ids_and_no_content() {
    let home = tempfile::tempdir().unwrap();
    let lines = serve_one_turn(home.path(), &[]).await;
    let events = events(&lines);
    let request = events
        .iter()
        .find(|e| {
            e["fields"]["message"] == "request"
                && e["span"]["path"]
                    .as_str()
                    .is_some_and(|p| p.ends_with("/messages"))
        })
        .unwrap_or_else(|| panic!("no request line in {lines:#?}"));
    assert_eq!(request["fields"]["status"], 202);
    let request_id = span_field(request, "request_id").unwrap();
    assert_eq!(request_id.len(), 16, "{request}");
    let started = events
        .iter()
        .find(|e| e["fields"]["message"] == "turn started")
        .unwrap_or_else(|| panic!("no turn start in {lines:#?}"));
    // The turn runs under the request that started it, with its own ids.
    assert_eq!(span_field(started, "request_id"), Some(request_id));
    let turn_id = span_field(started, "turn_id").unwrap();
    assert!(span_field(started, "conversation_id").is_some());
    let ended = events
        .iter()
        .find(|e| e["fields"]["message"] == "turn ended")
        .unwrap();
    assert_eq!(span_field(ended, "turn_id"), Some(turn_id));
    assert_eq!(ended["fields"]["status"], "Completed");
    let log = lines.join("\n");
    assert!(!log.contains("quartz-7311"), "the message leaked: {log}");
    assert!(!log.contains("basalt-2290"), "the answer leaked: {log}");
}

#[tokio::test]
async fn serve_logs_content_only_when_asked() {
    let home = tempfile::tempdir().unwrap();
    let lines = serve_one_turn(home.path(), &["--log-content"]).await;
    let events = events(&lines);
    let message = events
        .iter()
        .find(|e| e["fields"]["message"] == "user message")
        .unwrap_or_else(|| panic!("no message in {lines:#?}"));
    assert_eq!(message["fields"]["content"], MESSAGE);
    assert!(span_field(message, "turn_id").is_some());
    let answer = events
        .iter()
        .find(|e| e["fields"]["message"] == "answer")
        .unwrap();
    assert_eq!(answer["fields"]["content"], ANSWER);
}

#[tokio::test]
async fn run_warnings_reach_stderr_and_stdout_keeps_the_answer() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    // A context window below the minimum: the configuration warns and goes on.
    let models = serde_json::json!({"models": [
        {"id": "small", "baseUrl": model.base_url(), "model": "m", "contextWindow": 10}
    ]});
    std::fs::write(home.path().join("models.json"), models.to_string()).unwrap();
    model.push(ScriptedResponse::text("the answer"));
    let out = cli::smallebot(home.path(), None)
        .args(["run", "say it"])
        .output()
        .await
        .unwrap();
    let stderr = cli::text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(cli::text(&out.stdout).trim_end(), "the answer");
    assert!(stderr.contains("WARN"), "{stderr}");
    assert!(
        stderr.contains("contextWindow is below the minimum"),
        "{stderr}"
    );
    // --log-level quiets it.
    model.push(ScriptedResponse::text("again"));
    let quiet = cli::smallebot(home.path(), None)
        .args(["run", "--log-level", "error", "say it again"])
        .output()
        .await
        .unwrap();
    let stderr = cli::text(&quiet.stderr);
    assert!(quiet.status.success(), "{stderr}");
    assert!(!stderr.contains("below the minimum"), "{stderr}");
}

#[tokio::test]
async fn a_bad_log_level_is_refused_with_what_was_wrong() {
    let home = tempfile::tempdir().unwrap();
    let out = cli::smallebot(home.path(), None)
        .args(["--log-level", "loud=[", "conversations", "list"])
        .output()
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = cli::text(&out.stderr);
    assert!(stderr.contains("--log-level \"loud=[\""), "{stderr}");
}
