//! Streams are retried like requests: each fault kind, striking at each place of a
//! stream, is retried, and the turn completes with exactly one answer stored and each
//! tool executed once; what failed attempts streamed is never stored. When retries run
//! out the turn fails naming the last fault and the attempt count.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::*;
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::{HistoryRow, Role, TurnStatus};
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

/// How a faulty attempt breaks.
#[derive(Debug, Clone, Copy)]
enum Fault {
    Cut,
    EndWithoutFinish,
    Malformed,
    Stall,
}

/// Where in the stream it strikes (in SSE events of a response streamed in 4-char
/// pieces: role + text pieces, then tool-call pieces, then the finish).
#[derive(Debug, Clone, Copy)]
enum Place {
    BeforeFirstDelta,
    MidText,
    InsideToolArguments,
    BeforeFinish,
}

const TEXT: &str = "Let me look that up for you.";
const ARGS: &str = r#"{"text":"once only"}"#;

fn answer() -> ScriptedResponse {
    ScriptedResponse::text(TEXT)
        .with_tool_calls([ToolCallSpec::new("call_1", "Echo", ARGS)])
        .chunk_size(4)
}

fn faulty(fault: Fault, place: Place) -> ScriptedResponse {
    // 7 text pieces (the first with the role), the tool-call header, 5 argument pieces,
    // the finish, usage
    let at = match place {
        Place::BeforeFirstDelta => 0,
        Place::MidText => 4,
        Place::InsideToolArguments => 11,
        Place::BeforeFinish => 13,
    };
    match fault {
        Fault::Cut => answer().cut_after_chunks(at),
        Fault::EndWithoutFinish => answer().end_after_chunks(at),
        Fault::Malformed => answer().malformed_chunk_at(at),
        // Silence longer than the idle timeout: before anything, or (a slow line) after
        // the first event.
        Fault::Stall if at == 0 => answer().delay_before(Duration::from_secs(30)),
        Fault::Stall => answer()
            .cut_after_chunks(at)
            .delay_between(Duration::from_secs(30)),
    }
}

fn assistant_texts(rows: &[HistoryRow]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| match r {
            HistoryRow::Message(m) if m.role == Role::Assistant => Some(m.content.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn every_fault_anywhere_in_a_stream_is_retried_and_the_turn_completes_once() {
    let faults = [
        Fault::Cut,
        Fault::EndWithoutFinish,
        Fault::Malformed,
        Fault::Stall,
    ];
    let places = [
        Place::BeforeFirstDelta,
        Place::MidText,
        Place::InsideToolArguments,
        Place::BeforeFinish,
    ];
    let mut h = harness(Options {
        // Long enough that a healthy local stream never looks stalled on a busy machine.
        idle_timeout: Duration::from_secs(1),
        ..Options::default()
    })
    .await;
    for fault in faults {
        for place in places {
            let case = format!("{fault:?} {place:?}");
            h.server.push(faulty(fault, place));
            h.server.push(answer());
            h.server.push(ScriptedResponse::text("Done."));
            let c = h.conversation().await;
            let before = h.server.requests().len();
            let outcome = h
                .service
                .send(c.id, "look it up", SendOptions::default())
                .await
                .unwrap();
            assert_eq!(
                outcome.status,
                TurnStatus::Completed,
                "{case}: {:?}",
                outcome.error
            );
            assert_eq!(outcome.text, "Done.", "{case}");
            assert_eq!(
                h.server.requests().len() - before,
                3,
                "{case}: one retry, then the next step"
            );
            let rows = h.rows(&c).await;
            assert_eq!(assistant_texts(&rows), [TEXT, "Done."], "{case}");
            let calls: Vec<_> = rows
                .iter()
                .filter_map(|r| match r {
                    HistoryRow::ToolCall(t) => Some((t.arguments.clone(), t.result.clone())),
                    _ => None,
                })
                .collect();
            assert_eq!(
                calls,
                [(ARGS.to_owned(), Some("once only".to_owned()))],
                "{case}: the tool ran exactly once"
            );
            let events = h.drain_events();
            let retries = retries(&events);
            assert_eq!(retries.len(), 1, "{case}: {retries:?}");
            assert_eq!((retries[0].0, retries[0].1), (2, 6), "{case}");
        }
    }
}

#[tokio::test]
async fn when_retries_run_out_the_turn_fails_naming_the_fault_and_the_attempts() {
    let h = harness(Options {
        stream_max_retries: 2,
        ..Options::default()
    })
    .await;
    for _ in 0..3 {
        h.server.push(answer().cut_after_chunks(4));
    }
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "q", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    let error = outcome.error.unwrap();
    assert!(error.contains("was cut"), "{error}");
    assert!(error.contains("gave up after 3 attempt(s)"), "{error}");
    assert_eq!(h.server.requests().len(), 3);
    let rows = h.rows(&c).await;
    assert!(
        assistant_texts(&rows).is_empty(),
        "no half answer stored: {rows:?}"
    );
    assert!(!rows.iter().any(|r| matches!(r, HistoryRow::ToolCall(_))));
}

#[tokio::test]
async fn cancel_during_the_backoff_returns_at_once() {
    let h = harness(Options {
        retry_base_delay: Duration::from_secs(60),
        ..Options::default()
    })
    .await;
    h.server.push(answer().cut_after_chunks(4));
    let c = h.conversation().await;
    let mut events = h.service.subscribe(c.id);
    let service = std::sync::Arc::clone(&h.service);
    let turn = tokio::spawn(async move { service.send(c.id, "q", SendOptions::default()).await });
    loop {
        if let EventKind::Retrying { .. } = events.recv().await.unwrap().kind {
            break;
        }
    }
    let cancelled_at = Instant::now();
    assert!(h.service.cancel(c.id));
    let outcome = tokio::time::timeout(Duration::from_secs(10), turn)
        .await
        .expect("the backoff wait ends with the cancel")
        .unwrap()
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Cancelled);
    assert!(cancelled_at.elapsed() < Duration::from_secs(10));
    assert_eq!(h.server.requests().len(), 1, "no attempt after the cancel");
}

#[tokio::test]
async fn errors_no_retry_can_fix_are_sent_once() {
    let h = harness(Options::default()).await;
    h.server.push(ScriptedResponse::http_error(
        401,
        smallebot_testkit::error_body(
            "Incorrect API key provided",
            "invalid_request_error",
            None,
            Some("invalid_api_key"),
        ),
    ));
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "q", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    let error = outcome.error.unwrap();
    assert!(
        error.contains("401") && error.contains("OPENAI_API_KEY"),
        "{error}"
    );
    assert_eq!(h.server.requests().len(), 1);

    h.server.push(ScriptedResponse::http_error(
        404,
        smallebot_testkit::error_body("model not found", "invalid_request_error", None, None),
    ));
    let outcome = h
        .service
        .send(c.id, "again", SendOptions::default())
        .await
        .unwrap();
    let error = outcome.error.unwrap();
    assert!(
        error.contains("no model `test-model`") && error.contains("404"),
        "{error}"
    );
    assert_eq!(h.server.requests().len(), 2, "a 404 is not retried either");
}
