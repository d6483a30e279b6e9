//! Issue 3 acceptance 4: provider faults end to end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::*;
use smallebot_application::SendOptions;
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
async fn a_stream_cut_mid_text_fails_the_turn_and_keeps_the_partial_text() {
    let h = harness(Options::default()).await;
    h.server.push(
        ScriptedResponse::text("The answer is forty-two, because")
            .chunk_size(5)
            .cut_after_chunks(3),
    );
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "why?", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    assert!(!outcome.text.is_empty());
    assert!("The answer is forty-two, because".starts_with(&outcome.text));
    assert_eq!(
        stored_texts(&h.rows(&c).await, Role::Assistant),
        std::slice::from_ref(&outcome.text)
    );
    assert_eq!(
        h.server.requests().len(),
        1,
        "a started stream is never replayed"
    );
}

#[tokio::test]
async fn a_stream_that_ends_without_finishing_fails() {
    let h = harness(Options::default()).await;
    h.server.push(
        ScriptedResponse::text("half an answ")
            .chunk_size(4)
            .end_after_chunks(2),
    );
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "q", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    assert!(
        outcome
            .error
            .unwrap()
            .contains("ended before the model finished")
    );
}

#[tokio::test]
async fn a_malformed_chunk_fails_the_turn_clearly() {
    let h = harness(Options::default()).await;
    h.server.push(
        ScriptedResponse::text("hello there")
            .chunk_size(3)
            .malformed_chunk_at(2),
    );
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "q", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    assert!(outcome.error.unwrap().contains("malformed"));
}

#[tokio::test]
async fn an_idle_stream_times_out() {
    let h = harness(Options {
        idle_timeout: Duration::from_millis(500),
        ..Options::default()
    })
    .await;
    h.server
        .push(ScriptedResponse::text("slow").delay_before(Duration::from_secs(30)));
    let c = h.conversation().await;
    let started = Instant::now();
    let outcome = h
        .service
        .send(c.id, "q", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    assert!(outcome.error.unwrap().contains("idle timeout"));
    assert!(started.elapsed() < Duration::from_secs(10));
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
