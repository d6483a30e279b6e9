//! A service stopping for a shutdown: closed, it takes no new turn; interrupted, its
//! running turn ends `cancelled` with the unfinished tool call `interrupted` (a call
//! the person cancels stays `cancelled`), and `idle` returns once all is stored.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use smallebot_application::{EventKind, PipelineError, SendOptions};
use smallebot_core::entities::{HistoryRow, ToolCallStatus, TurnStatus};
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

/// Starts a turn in a new conversation that calls `Sleepy` for a long time, and
/// returns once the call runs.
async fn turn_in_a_long_tool(
    h: &Harness,
) -> (
    smallebot_core::entities::Conversation,
    tokio::task::JoinHandle<Result<smallebot_application::TurnOutcome, PipelineError>>,
) {
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "long",
            "Sleepy",
            r#"{"ms": 600000}"#,
        )]));
    let c = h.conversation().await;
    let mut events = h.service.subscribe(c.id);
    let service = std::sync::Arc::clone(&h.service);
    let task =
        tokio::spawn(async move { service.send(c.id, "wait", SendOptions::default()).await });
    while !matches!(
        events.recv().await.unwrap().kind,
        EventKind::ToolCallStarted { .. }
    ) {}
    (c, task)
}

async fn the_call(
    h: &Harness,
    c: &smallebot_core::entities::Conversation,
) -> (ToolCallStatus, String) {
    h.rows(c)
        .await
        .into_iter()
        .find_map(|row| match row {
            HistoryRow::ToolCall(call) => Some((call.status, call.result.unwrap_or_default())),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn an_interrupted_service_ends_its_turns_stored_and_takes_no_new_ones() {
    let h = harness(Options::default()).await;
    let (c, task) = turn_in_a_long_tool(&h).await;
    assert_eq!(h.service.running(), 1);
    assert_eq!(h.service.interrupt_all(), 1);
    tokio::time::timeout(Duration::from_secs(10), h.service.idle())
        .await
        .expect("idle once the turn is stored");
    let outcome = task.await.unwrap().unwrap();
    assert_eq!(outcome.status, TurnStatus::Cancelled);
    let (status, result) = the_call(&h, &c).await;
    assert_eq!(status, ToolCallStatus::Interrupted);
    assert!(
        result.contains("[interrupted: SmallEBot was shutting down]"),
        "{result}"
    );
    let refused = h.service.send(c.id, "more", SendOptions::default()).await;
    assert!(
        matches!(refused, Err(PipelineError::ShuttingDown)),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_closed_service_lets_its_turn_run_and_a_cancelled_call_stays_cancelled() {
    let h = harness(Options::default()).await;
    let (c, task) = turn_in_a_long_tool(&h).await;
    h.service.close();
    let other = h.conversation().await;
    let refused = h
        .service
        .send(other.id, "new", SendOptions::default())
        .await;
    assert!(
        matches!(refused, Err(PipelineError::ShuttingDown)),
        "{refused:?}"
    );
    assert!(h.service.is_busy(c.id), "the running turn goes on");
    // The person cancels: not a shutdown's interruption.
    assert!(h.service.cancel(c.id));
    let outcome = task.await.unwrap().unwrap();
    assert_eq!(outcome.status, TurnStatus::Cancelled);
    assert_eq!(the_call(&h, &c).await.0, ToolCallStatus::Cancelled);
    h.service.idle().await;
}
