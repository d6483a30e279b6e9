//! Stopping `serve` through the real binary: on SIGTERM it refuses new turns at once,
//! lets a running turn finish within `--shutdown-grace`, and cancels one still running
//! at the grace's end — its turn stored, its tool call `interrupted`, its command's
//! processes, control group and temporary folder gone.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;
mod shutdown_support;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;
use shutdown_support::{
    assert_stopped_cleanly, configure_sandbox, host_groups, model_running_a_sleeper, pid_in,
    send_signal,
};
use smallebot_core::entities::TurnStatus;
use smallebot_core::repository::{ConversationRepository, TurnRepository};
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{Gate, ScriptedResponse, TestModel};
use tokio::io::{AsyncBufReadExt, BufReader};

/// `serve` started with `args`: the process, its page address, and its standard error
/// lines as they come.
async fn serve(
    home: &Path,
    temp: &Path,
    model: &TestModel,
    args: &[&str],
) -> (
    tokio::process::Child,
    String,
    tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    let mut child = cli::smallebot(home, Some(&model.base_url()))
        .env("TMPDIR", temp)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let banner = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("a banner within 30 s")
        .unwrap()
        .expect("serve prints where it listens");
    let address = banner
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://"))
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let mut errors = BufReader::new(child.stderr.take().unwrap()).lines();
    tokio::spawn(async move {
        while let Ok(Some(line)) = errors.next_line().await {
            let _ = tx.send(line);
        }
    });
    (child, format!("http://{address}"), rx)
}

/// Waits (at most 30 s) for a standard error line containing `needle`.
async fn line_with(lines: &mut tokio::sync::mpsc::UnboundedReceiver<String>, needle: &str) {
    let wait = async {
        while let Some(line) = lines.recv().await {
            if line.contains(needle) {
                return;
            }
        }
        panic!("standard error ended without '{needle}'");
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .unwrap_or_else(|_| panic!("no '{needle}' on standard error within 30 s"));
}

/// Starts a turn in a new conversation; returns the conversation's id.
async fn start_turn(http: &reqwest::Client, base: &str, text: &str) -> reqwest::Response {
    let created: serde_json::Value = http
        .post(format!("{base}/api/conversations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    http.post(format!("{base}/api/conversations/{id}/messages"))
        .json(&json!({ "text": text }))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn sigterm_to_serve_lets_the_running_turn_finish_within_the_grace() {
    let home = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    let answer = Gate::new();
    model.push(ScriptedResponse::text("the whole answer").hold_until(&answer));
    let (child, base, mut errors) = serve(
        home.path(),
        temp.path(),
        &model,
        &["--shutdown-grace", "60"],
    )
    .await;
    let http = reqwest::Client::new();
    let started = start_turn(&http, &base, "answer slowly").await;
    assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
    send_signal(child.id().unwrap(), rustix::process::Signal::TERM);
    line_with(&mut errors, "SIGTERM: stopping — no new turns").await;
    // Still answering, but no new turn is taken.
    let refused = start_turn(&http, &base, "one more").await;
    assert_eq!(
        refused.status(),
        reqwest::StatusCode::SERVICE_UNAVAILABLE,
        "{:?}",
        refused.text().await
    );
    let opened = Instant::now();
    answer.open();
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("serve exits once the turn ended")
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(opened.elapsed() < Duration::from_secs(30));
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let mut statuses = Vec::new();
    for c in store.list_conversations(None).await.unwrap() {
        for turn in store.list_turns(c.id).await.unwrap() {
            statuses.push(turn.status);
        }
    }
    // The refused message started no turn.
    assert_eq!(statuses, [TurnStatus::Completed]);
    store.close().await;
}

#[tokio::test]
async fn sigterm_to_serve_cancels_a_running_command_at_the_grace_end() {
    let home = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    configure_sandbox(home.path());
    let model = TestModel::start().await.unwrap();
    model_running_a_sleeper(&model);
    let (child, base, mut errors) =
        serve(home.path(), temp.path(), &model, &["--shutdown-grace", "1"]).await;
    let host = child.id().unwrap();
    let http = reqwest::Client::new();
    let started = start_turn(&http, &base, "sleep for a while").await;
    assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
    let sleep = pid_in(&home.path().join("workspace/sleep.pid")).await;
    let groups = host_groups(sleep);
    let signalled = Instant::now();
    send_signal(host, rustix::process::Signal::TERM);
    line_with(&mut errors, "the shutdown grace ended").await;
    assert!(signalled.elapsed() >= Duration::from_secs(1));
    let out = tokio::time::timeout(Duration::from_secs(15), child.wait_with_output())
        .await
        .expect("serve exits soon after the grace")
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_stopped_cleanly(home.path(), temp.path(), host, sleep, &groups).await;
}
