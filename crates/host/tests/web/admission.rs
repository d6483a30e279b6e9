//! Turn starts wait for a place (`WebState::concurrent_turn_starts`): a start holds it
//! only until its turn is stored, a summary's model call holds none, and a start whose
//! client left while it waited starts nothing.

use crate::common;

use std::time::Duration;

use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_testkit::{Gate, ScriptedResponse};
use sqlx::Connection as _;
use tokio::task::JoinHandle;

/// Sends `text` and expects `202` within five seconds.
async fn started_promptly(s: &Server, id: &str, text: &str) {
    let sent = tokio::time::timeout(Duration::from_secs(5), s.send(id, json!({ "text": text })))
        .await
        .expect("the start was answered within 5 s");
    assert_eq!(sent.status(), StatusCode::ACCEPTED);
}

/// Sends `text` from a task of its own; the task ends with the answer's status.
fn send_in_background(s: &Server, id: &str, text: &str) -> JoinHandle<StatusCode> {
    let request = s
        .http
        .post(s.url(&format!("/api/conversations/{id}/messages")))
        .json(&json!({ "text": text }));
    tokio::spawn(async move { request.send().await.unwrap().status() })
}

async fn row_count(s: &Server, id: &str) -> usize {
    let timeline: Value = s.get_json(&format!("/api/conversations/{id}")).await;
    timeline["rows"].as_array().unwrap().len()
}

#[tokio::test]
async fn a_running_turn_gives_its_place_to_the_next_start() {
    let s = Server::start_with(|state| state.concurrent_turn_starts(1)).await;
    let held = Gate::new();
    s.model
        .push(ScriptedResponse::text("the held answer").hold_until(&held));
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let (first, second) = (s.create().await, s.create().await);
    let mut events = s.open_events(&first, None).await;
    started_promptly(&s, &first, "the first question").await;
    // The first turn runs on (its answer held back); the only place is free again.
    started_promptly(&s, &second, "the second question").await;
    assert!(!held.is_open());
    held.open();
    let frames = events.until_turn_ends().await;
    assert_eq!(frames.last().unwrap().data["type"], "TurnCompleted");
}

#[tokio::test]
async fn a_summary_before_a_turn_holds_no_place() {
    // A small window, so that the fourth turn compresses first.
    let s = Server::start_full(
        |agent, _| {
            agent.history(smallebot_agent::history::HistorySettings {
                context_window: 600,
                ..smallebot_agent::history::HistorySettings::default()
            })
        },
        |web| web.concurrent_turn_starts(1),
    )
    .await;
    let summary_held = Gate::new();
    let gate = summary_held.clone();
    s.script_roles(move |_| ScriptedResponse::text("SUMMARY").hold_until(&gate));
    let (full, other) = (s.create().await, s.create().await);
    let filler = "and more words ".repeat(50);
    for text in ["first question", "second question", "third question"] {
        s.turn(&full, &format!("{text} {filler}")).await;
    }
    let mut events = s.open_events(&full, None).await;
    let compressing = send_in_background(&s, &full, "fourth question");
    // Wait until the summary is being written (its model call held back)…
    loop {
        let frame = events.next().await.unwrap();
        if frame.data["type"] == "CompressionStarted" {
            break;
        }
    }
    // …while another conversation starts at once.
    started_promptly(&s, &other, "meanwhile").await;
    assert!(!summary_held.is_open());
    summary_held.open();
    assert_eq!(compressing.await.unwrap(), StatusCode::ACCEPTED);
}

#[tokio::test]
async fn a_start_waits_for_its_place_and_starts_nothing_once_its_client_left() {
    let s = Server::start_with(|state| state.concurrent_turn_starts(1)).await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let (first, second) = (s.create().await, s.create().await);
    // Another process holds SQLite's write lock: the first start cannot be stored and
    // keeps the only place.
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(s.store.path());
    let mut other = sqlx::SqliteConnection::connect_with(&options)
        .await
        .unwrap();
    sqlx::raw_sql("BEGIN IMMEDIATE")
        .execute(&mut other)
        .await
        .unwrap();
    let mut events = s.open_events(&first, None).await;
    let waiting = send_in_background(&s, &first, "stored once the lock is free");
    // Its turn began (busy), so it holds the place: its reads do not wait for the lock.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while s.get_json(&format!("/api/conversations/{first}")).await["busy"] != true {
        assert!(
            std::time::Instant::now() < deadline,
            "the first start never began"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The second start waits for the place; its client gives up.
    let gave_up = s
        .http
        .post(s.url(&format!("/api/conversations/{second}/messages")))
        .json(&json!({ "text": "never started" }))
        .timeout(Duration::from_millis(500))
        .send()
        .await;
    assert!(gave_up.unwrap_err().is_timeout());

    sqlx::raw_sql("COMMIT").execute(&mut other).await.unwrap();
    assert_eq!(waiting.await.unwrap(), StatusCode::ACCEPTED);
    let frames = events.until_turn_ends().await;
    assert_eq!(frames.last().unwrap().data["type"], "TurnCompleted");
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Never admitted, so never started: nothing of it is stored.
    assert_eq!(row_count(&s, &second).await, 0);
    assert_eq!(row_count(&s, &first).await, 2);
}
