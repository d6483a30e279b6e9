//! Provider faults before the body (rate limits, server errors) and step limits end to
//! end; faults inside a stream are in `pipeline_resilience.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::*;
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::{HistoryRow, Role, TurnStatus};
use smallebot_core::repository::TurnRepository;
use smallebot_testkit::ScriptedResponse;

fn stored_texts(rows: &[HistoryRow], role: Role) -> Vec<String> {
    rows.iter()
        .filter_map(|r| match r {
            HistoryRow::Message(m) if m.role == role => Some(m.content.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn rate_limit_is_retried_after_retry_after() {
    let h = harness(Options::default()).await;
    h.server.push(ScriptedResponse::rate_limited(1));
    h.server.push(ScriptedResponse::text("finally"));
    let c = h.conversation().await;
    let started = Instant::now();
    let outcome = h
        .service
        .send(c.id, "hi", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert_eq!(outcome.text, "finally");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "waited {:?}",
        started.elapsed()
    );
    assert_eq!(h.server.requests().len(), 2, "exactly one retry");
}

#[tokio::test]
async fn retries_before_the_first_byte_are_announced_as_they_come() {
    let mut h = harness(Options::default()).await;
    h.server.push(ScriptedResponse::rate_limited(0));
    h.server.push(ScriptedResponse::server_error(503));
    h.server.push(ScriptedResponse::text("finally"));
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "hi", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.text, "finally");
    let events = h.drain_events();
    assert_eq!(
        retries(&events),
        [
            (2, 4, "rate limited (429)".to_owned()),
            (3, 4, "server error 503".to_owned())
        ],
        "{events:?}"
    );
    let first_text = events
        .iter()
        .position(|e| matches!(e, EventKind::TextDelta { .. }))
        .unwrap();
    let last_retry = events
        .iter()
        .rposition(|e| matches!(e, EventKind::Retrying { .. }))
        .unwrap();
    assert!(last_retry < first_text, "{events:?}");
}

#[tokio::test]
async fn five_server_errors_fail_the_turn_after_four_attempts_keeping_the_message() {
    let h = harness(Options::default()).await;
    for _ in 0..5 {
        h.server.push(ScriptedResponse::server_error(500));
    }
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "are you there?", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    let error = outcome.error.unwrap();
    assert!(
        error.contains("500") && error.contains("4 attempts"),
        "{error}"
    );
    assert_eq!(h.server.requests().len(), 4);
    let turn = &h.store.list_turns(c.id).await.unwrap()[0];
    assert_eq!(turn.status, TurnStatus::Failed);
    assert_eq!(turn.error.as_deref(), Some(error.as_str()));
    assert_eq!(
        stored_texts(&h.rows(&c).await, Role::User),
        ["are you there?"]
    );
}

#[tokio::test]
async fn too_many_tool_steps_stop_the_turn() {
    let h = harness(Options {
        max_tool_steps: 3,
        ..Options::default()
    })
    .await;
    h.server.respond_with(|req| {
        smallebot_testkit::ScriptedResponse::tool_calls([smallebot_testkit::ToolCallSpec::new(
            format!("c{}", req.index),
            "GetCurrentTime",
            "{}",
        )])
    });
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "loop", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    assert!(outcome.error.unwrap().contains("maxToolSteps"));
    assert_eq!(h.server.requests().len(), 3);
}

#[tokio::test]
async fn a_server_error_with_a_foreign_body_says_what_failed_without_dumping_it() {
    let h = harness(Options::default()).await;
    for _ in 0..4 {
        h.server.push(ScriptedResponse::http_error(
            500,
            serde_json::json!({"detail": "Internal Server Error", "trace": ["a", "b"]}),
        ));
    }
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "hello", SendOptions::default())
        .await
        .unwrap();
    let error = outcome.error.unwrap();
    assert!(error.contains("500"), "{error}");
    assert!(!error.contains('{'), "no raw JSON: {error}");
    assert!(error.contains("Internal Server Error"), "{error}");
}

#[tokio::test]
async fn a_message_far_larger_than_the_window_is_refused_before_it_is_sent_and_kept() {
    let mut h = harness(Options {
        context_window: 4_000,
        ..Options::default()
    })
    .await;
    let c = h.conversation().await;
    let huge = filler("huge", 40_000);
    let outcome = h
        .service
        .send(c.id, &huge, SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    let error = outcome.error.unwrap();
    for part in [
        "more than the model's 4000-token context window",
        "not sent",
        "KB)",
        "shorter message",
    ] {
        assert!(error.contains(part), "{part}: {error}");
    }
    assert_eq!(h.server.request_count(), 0, "nothing reached the provider");
    // The message is stored, the turn failed with the same error.
    let rows = h.rows(&c).await;
    assert_eq!(stored_texts(&rows, Role::User), [huge]);
    let turn = h.store.get_turn(outcome.turn_id).await.unwrap().unwrap();
    assert_eq!(turn.status, TurnStatus::Failed);
    assert_eq!(turn.error.as_deref(), Some(error.as_str()));
    let events = h.drain_events();
    assert!(
        events.iter().any(|e| matches!(
            e,
            smallebot_application::EventKind::TurnFailed { error: failed } if *failed == error
        )),
        "{events:?}"
    );
    // Not blamed on the system prompt and tools, which are small.
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, smallebot_application::EventKind::Warning { .. })),
        "{events:?}"
    );

    // A message that fits is sent as before.
    h.server.push(ScriptedResponse::text("small answer"));
    let outcome = h
        .service
        .send(c.id, "a small question", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
}

#[tokio::test]
async fn a_title_request_that_meets_a_server_error_is_retried() {
    let h = harness(Options::default()).await;
    let c = h.conversation().await;
    h.server.push(ScriptedResponse::text("an answer"));
    h.service
        .send(c.id, "tell me about armadillos", SendOptions::default())
        .await
        .unwrap();
    h.server.push(ScriptedResponse::server_error(503));
    h.server.push(ScriptedResponse::rate_limited(0));
    h.server.push(ScriptedResponse::text("Armadillo facts"));
    let title = h.service.generate_title(c.id).await.unwrap();
    assert_eq!(title.as_deref(), Some("Armadillo facts"));
    assert_eq!(
        h.server.request_count(),
        4,
        "two retries of the title request"
    );
}
