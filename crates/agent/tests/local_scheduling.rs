//! Issue 40, no self-inflicted stalls: on a server that answers one request at a time
//! the title waits for the turn's requests; waiting for the first byte is not a stall
//! (its own limit), silence after it is.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use smallebot_application::SendOptions;
use smallebot_core::entities::TurnStatus;
use smallebot_testkit::{Gate, ScriptedResponse, ToolCallSpec};

fn with_title() -> SendOptions {
    SendOptions {
        title: true,
        ..SendOptions::default()
    }
}

#[tokio::test]
async fn on_a_one_request_server_the_title_waits_for_the_turns_requests() {
    let h = harness(Options {
        parallel_requests: Some(1),
        ..Options::default()
    })
    .await;
    h.server.answer_when(
        |r| r.asks_for_title(),
        |_| ScriptedResponse::text("Greeting"),
    );
    let gate = Gate::new();
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "call_1",
            "GetCurrentTime",
            "{}",
        )]));
    h.server
        .push(ScriptedResponse::text("Bonjour !").hold_until(&gate));
    let c = h.conversation().await;
    let handle = h
        .service
        .start(c.id, "Say hello", with_title())
        .await
        .unwrap();
    h.server
        .wait_for_requests(2, Duration::from_secs(10))
        .await
        .unwrap();
    // The turn's second request is held by the server: a title sent beside it would
    // arrive now.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(h.server.request_count(), 2, "no title while the turn runs");
    gate.open();
    let outcome = handle.end.await.unwrap().unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    let title = handle.title.unwrap().await.unwrap().unwrap();
    assert_eq!(title.as_deref(), Some("Greeting"));
    let order: Vec<bool> = h
        .server
        .requests()
        .iter()
        .map(smallebot_testkit::RecordedRequest::asks_for_title)
        .collect();
    assert_eq!(
        order,
        [false, false, true],
        "the title after the turn's requests"
    );
}

#[tokio::test]
async fn on_a_server_of_many_requests_the_title_goes_beside_the_turn() {
    let h = harness(Options::default()).await;
    h.server.answer_when(
        |r| r.asks_for_title(),
        |_| ScriptedResponse::text("Greeting"),
    );
    let gate = Gate::new();
    h.server
        .push(ScriptedResponse::text("Bonjour !").hold_until(&gate));
    let c = h.conversation().await;
    let handle = h
        .service
        .start(c.id, "Say hello", with_title())
        .await
        .unwrap();
    // Both arrive while the turn's answer is held.
    let requests = h
        .server
        .wait_for_requests(2, Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(requests.iter().filter(|r| r.asks_for_title()).count(), 1);
    gate.open();
    handle.end.await.unwrap().unwrap();
}

#[tokio::test]
async fn waiting_for_the_first_byte_is_not_a_stall() {
    let mut h = harness(Options {
        idle_timeout: Duration::from_millis(200),
        first_byte_timeout: Some(Duration::from_secs(30)),
        ..Options::default()
    })
    .await;
    // Queued on the server (no headers), then a long prompt read (headers, no body).
    h.server.push(
        ScriptedResponse::text("Bonjour !")
            .delay_headers(Duration::from_millis(500))
            .delay_before(Duration::from_millis(500)),
    );
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "Say hello", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed, "{:?}", outcome.error);
    assert_eq!(h.server.requests().len(), 1, "never retried");
    let events = h.drain_events();
    assert!(retries(&events).is_empty(), "{events:?}");
}

#[tokio::test]
async fn silence_after_the_first_byte_is_a_stall_and_no_first_byte_has_its_own_limit() {
    let mut h = harness(Options {
        idle_timeout: Duration::from_millis(300),
        first_byte_timeout: Some(Duration::from_secs(30)),
        stream_max_retries: 1,
        ..Options::default()
    })
    .await;
    h.server.push(
        ScriptedResponse::text("Bonjour, comment allez-vous ?")
            .chunk_size(4)
            .pause_after_chunks(1, &Gate::new()),
    );
    h.server.push(ScriptedResponse::text("Bonjour !"));
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "Say hello", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    let events = h.drain_events();
    let reasons: Vec<String> = retries(&events).into_iter().map(|(_, _, r)| r).collect();
    assert_eq!(reasons, ["stream stalled"], "{events:?}");

    let h = harness(Options {
        idle_timeout: Duration::from_secs(30),
        first_byte_timeout: Some(Duration::from_millis(300)),
        stream_max_retries: 0,
        ..Options::default()
    })
    .await;
    h.server
        .push(ScriptedResponse::text("late").delay_before(Duration::from_secs(30)));
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "Say hello", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    let error = outcome.error.unwrap();
    assert!(error.contains("firstByteTimeoutSeconds"), "{error}");
}
