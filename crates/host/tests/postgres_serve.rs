//! Two `smallebot serve` processes on one PostgreSQL database (a throwaway cluster):
//! a turn started on one streams to a subscriber of the other, a second turn is
//! refused with 409 wherever it lands, and when one process is killed mid-turn the
//! other marks that turn interrupted and takes the conversation on; a turn running on
//! one is busy on the other, whose cancel reaches it.
//!
//! Skipped with one loud line without PostgreSQL binaries, unless
//! `SMALLEBOT_REQUIRE_POSTGRES` is set (CI), where it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_core::entities::{HistoryRow, Role, TurnStatus};
use smallebot_core::repository::{HistoryRepository, TurnRepository};
use smallebot_postgres::PgStore;
use smallebot_testkit::postgres::TestCluster;
use smallebot_testkit::{Gate, ScriptedResponse, TestModel};

/// `serve` on a free loopback port with `--database url`; the process and its address.
async fn serve(home: &Path, model: &str, url: &str) -> (tokio::process::Child, String) {
    let mut command = cli::smallebot(home, Some(model));
    command.args(["--database", url, "serve", "--addr", "127.0.0.1:0"]);
    let (child, _, base) = cli::start_serving(command).await;
    (child, base)
}

/// Reads the server-sent events of `response` until one of type `wanted` arrives;
/// returns it with the types seen before it.
async fn until_event(
    response: &mut reqwest::Response,
    buffer: &mut String,
    wanted: &str,
) -> (Value, Vec<String>) {
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            for line in block.lines() {
                if let Some(data) = line.strip_prefix("data:") {
                    let Ok(event) = serde_json::from_str::<Value>(data.trim()) else {
                        continue;
                    };
                    let kind = event["type"].as_str().unwrap_or_default().to_owned();
                    if kind == wanted {
                        return (event, seen);
                    }
                    seen.push(kind);
                }
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let chunk = tokio::time::timeout(left, response.chunk())
            .await
            .unwrap_or_else(|_| panic!("no {wanted} event within 30 s; saw {seen:?}"))
            .unwrap()
            .unwrap_or_else(|| panic!("the stream ended before {wanted}; saw {seen:?}"));
        buffer.push_str(&String::from_utf8_lossy(&chunk));
    }
}

async fn send(http: &reqwest::Client, base: &str, id: &str, text: &str) -> (StatusCode, Value) {
    let response = http
        .post(format!("{base}/api/conversations/{id}/messages"))
        .json(&json!({ "text": text }))
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn two_servers_on_one_database_share_turns_events_and_recovery() {
    let Some(cluster) = TestCluster::start("two_servers_on_one_database") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    let gate = Gate::new();
    let never = Gate::new();
    cli::answer_titles(&model);
    model.respond_with({
        let (gate, never) = (gate.clone(), never.clone());
        move |request| {
            let asked = request.last_user_text().unwrap_or_default();
            if asked.contains("held question") {
                ScriptedResponse::text("the held answer").hold_until(&gate)
            } else if asked.contains("doomed question") {
                ScriptedResponse::text("never sent").hold_until(&never)
            } else if asked.contains("after the crash") {
                ScriptedResponse::text("answered by the survivor")
            } else {
                ScriptedResponse::text("an unscripted question")
            }
        }
    });
    let (mut a, base_a) = serve(home.path(), &model.base_url(), &url).await;
    let (mut b, base_b) = serve(home.path(), &model.base_url(), &url).await;
    let http = reqwest::Client::new();

    // Created on A, seen on B.
    let created: Value = http
        .post(format!("{base_a}/api/conversations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    let on_b = http
        .get(format!("{base_b}/api/conversations/{id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(on_b.status(), StatusCode::OK);

    // B's page follows the conversation; the turn runs on A.
    let mut events = http
        .get(format!("{base_b}/api/conversations/{id}/events"))
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), StatusCode::OK);
    let mut buffer = String::new();
    let (status, started) = send(&http, &base_a, &id, "held question").await;
    assert_eq!(status, StatusCode::ACCEPTED, "{started}");
    let (event, _) = until_event(&mut events, &mut buffer, "TurnStarted").await;
    assert_eq!(event["turn_id"], started["turn_id"], "B sees A's turn");

    // While it runs, a second turn is refused on either server.
    for base in [&base_b, &base_a] {
        let (status, body) = send(&http, base, &id, "a second question").await;
        assert_eq!(status, StatusCode::CONFLICT, "{base}: {body}");
    }
    gate.open();
    let (done, seen) = until_event(&mut events, &mut buffer, "TurnCompleted").await;
    assert_eq!(done["text"], "the held answer", "{done}");
    assert!(
        seen.iter().any(|k| k == "TextDelta"),
        "streamed on B: {seen:?}"
    );

    // A dies mid-turn; B marks the turn interrupted by itself and serves the next one.
    let (status, doomed) = send(&http, &base_a, &id, "doomed question").await;
    assert_eq!(status, StatusCode::ACCEPTED, "{doomed}");
    let doomed_turn: smallebot_core::ids::TurnId =
        doomed["turn_id"].as_str().unwrap().parse().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !model.requests().iter().any(|r| {
        r.last_user_text()
            .is_some_and(|t| t.contains("doomed question"))
    }) {
        assert!(
            Instant::now() < deadline,
            "the doomed turn never reached the model"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    a.kill().await.unwrap();
    a.wait().await.unwrap();
    let store = PgStore::connect(&url).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let turn = store.get_turn(doomed_turn).await.unwrap().unwrap();
        if turn.status == TurnStatus::Interrupted {
            break;
        }
        assert_eq!(turn.status, TurnStatus::Running);
        assert!(
            Instant::now() < deadline,
            "B never recovered the dead process's turn"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, body) = send(&http, &base_b, &id, "after the crash").await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    let (done, _) = until_event(&mut events, &mut buffer, "TurnCompleted").await;
    assert_eq!(done["text"], "answered by the survivor");
    b.kill().await.unwrap();
    never.open();
    store.close().await;
}

/// `GET /api/conversations/{id}`'s `busy`.
async fn busy(http: &reqwest::Client, base: &str, id: &str) -> bool {
    let timeline: Value = http
        .get(format!("{base}/api/conversations/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    timeline["busy"]
        .as_bool()
        .unwrap_or_else(|| panic!("no busy in {timeline}"))
}

/// `POST /api/conversations/{id}/cancel`'s `cancelled`.
async fn cancel(http: &reqwest::Client, base: &str, id: &str) -> bool {
    let answer: Value = http
        .post(format!("{base}/api/conversations/{id}/cancel"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["cancelled"]
        .as_bool()
        .unwrap_or_else(|| panic!("no cancelled in {answer}"))
}

#[tokio::test]
async fn a_turn_running_on_one_server_is_busy_on_the_other_which_cancels_it() {
    let Some(cluster) = TestCluster::start("busy_and_cancel_across_servers") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    let rest = Gate::new();
    let full = "one two three four five six seven eight nine ten";
    cli::answer_titles(&model);
    model.respond_with({
        let rest = rest.clone();
        move |_| {
            ScriptedResponse::text(full)
                .chunk_size(4)
                .pause_after_chunks(3, &rest)
        }
    });
    let (mut a, base_a) = serve(home.path(), &model.base_url(), &url).await;
    let (mut b, base_b) = serve(home.path(), &model.base_url(), &url).await;
    let http = reqwest::Client::new();
    let created: Value = http
        .post(format!("{base_a}/api/conversations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    let mut events = http
        .get(format!("{base_b}/api/conversations/{id}/events"))
        .send()
        .await
        .unwrap();
    let mut buffer = String::new();

    // The turn runs on A and is held mid-answer.
    let (status, started) = send(&http, &base_a, &id, "count to ten").await;
    assert_eq!(status, StatusCode::ACCEPTED, "{started}");
    until_event(&mut events, &mut buffer, "TextDelta").await;
    assert!(busy(&http, &base_a, &id).await, "busy where it runs");
    assert!(
        busy(&http, &base_b, &id).await,
        "busy on the other server too"
    );

    // B cancels it: A is asked, cancels, and answers.
    assert!(
        cancel(&http, &base_b, &id).await,
        "B's cancel reached A's turn"
    );
    let (ended, _) = until_event(&mut events, &mut buffer, "TurnCancelled").await;
    assert_eq!(ended["turn_id"], started["turn_id"], "{ended}");
    assert!(!busy(&http, &base_b, &id).await, "free once cancelled");
    assert!(!cancel(&http, &base_b, &id).await, "nothing left to cancel");

    // Stored as cancelled, with the partial answer.
    let store = PgStore::connect(&url).await.unwrap();
    let turn_id: smallebot_core::ids::TurnId =
        started["turn_id"].as_str().unwrap().parse().unwrap();
    let turn = store.get_turn(turn_id).await.unwrap().unwrap();
    assert_eq!(turn.status, TurnStatus::Cancelled);
    let answers: Vec<String> = store
        .rows_after(turn.conversation_id, 0)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|row| match row {
            HistoryRow::Message(m) if m.role == Role::Assistant => Some(m.content),
            _ => None,
        })
        .collect();
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert!(
        !answers[0].is_empty() && full.starts_with(&answers[0]) && answers[0] != full,
        "the partial answer is kept: {answers:?}"
    );
    rest.open();
    a.kill().await.unwrap();
    b.kill().await.unwrap();
    store.close().await;
}
