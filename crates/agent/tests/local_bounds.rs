//! Issue 40, bounded answers: every request carries `max_tokens` (the model's
//! `maxOutputTokens`, never more than what the prompt leaves of the window; a title's
//! own small bound), and an answer a limit cut is kept, marked cut, never retried.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use smallebot_application::pipeline::TITLE_MAX_TOKENS;
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::{AnswerCut, HistoryRow, TurnStatus};
use smallebot_core::repository::TurnRepository;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

/// The `used` of the last `ContextUsage` event before the request went.
fn last_used(events: &[EventKind]) -> u64 {
    events
        .iter()
        .rev()
        .find_map(|e| match e {
            EventKind::ContextUsage { used, .. } => Some(*used),
            _ => None,
        })
        .unwrap()
}

#[tokio::test]
async fn a_turn_request_carries_the_models_output_bound() {
    let mut h = harness(Options {
        max_output_tokens: Some(256),
        ..Options::default()
    })
    .await;
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "call_1",
            "GetCurrentTime",
            "{}",
        )]));
    h.server.push(ScriptedResponse::text("Bonjour !"));
    let c = h.conversation().await;
    h.service
        .send(c.id, "Say hello in French", SendOptions::default())
        .await
        .unwrap();
    let requests = h.server.requests();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        assert_eq!(r.body["max_tokens"], 256, "every step is bounded");
    }
    let _ = h.drain_events();
}

#[tokio::test]
async fn the_bound_never_passes_what_the_prompt_leaves_of_the_window() {
    let mut h = harness(Options {
        context_window: 2_000,
        compression_threshold: 0.95,
        ..Options::default()
    })
    .await;
    h.server.push(ScriptedResponse::text("Bonjour !"));
    let c = h.conversation().await;
    h.service
        .send(c.id, "Say hello in French", SendOptions::default())
        .await
        .unwrap();
    let used = last_used(&h.drain_events());
    let sent = h.server.requests()[0].body["max_tokens"].as_u64().unwrap();
    assert!(used > 0 && used < 2_000, "{used}");
    assert_eq!(
        sent,
        2_000 - used,
        "no maxOutputTokens: what the window leaves"
    );
}

#[tokio::test]
async fn a_length_end_keeps_the_answer_marked_cut_and_is_not_retried() {
    let mut h = harness(Options {
        max_output_tokens: Some(64),
        ..Options::default()
    })
    .await;
    h.server.push(
        ScriptedResponse::text("Bonjour ! Je vais maintenant vous raconter")
            .finish_reason("length"),
    );
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "Say hello in French", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert_eq!(outcome.cut, Some(AnswerCut::OutputLimit));
    assert_eq!(
        h.server.requests().len(),
        1,
        "a cut answer is never retried"
    );
    let turns = h.store.list_turns(c.id).await.unwrap();
    assert_eq!(turns[0].cut, Some(AnswerCut::OutputLimit), "stored as cut");
    let rows = h.rows(&c).await;
    assert!(
        matches!(rows.last(), Some(HistoryRow::Message(m)) if m.content.starts_with("Bonjour !")),
        "the answer is kept: {rows:?}"
    );
    let events = h.drain_events();
    assert!(
        events.iter().any(|e| matches!(
            e,
            EventKind::TurnCompleted { cut: Some(cut), .. }
                if *cut == smallebot_application::wire::bodies::answer_cut(AnswerCut::OutputLimit)
        )),
        "the end says the answer was cut: {events:?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventKind::Retrying { .. })),
        "{events:?}"
    );

    // The next turn is whole again.
    h.server.push(ScriptedResponse::text("Salut."));
    let outcome = h
        .service
        .send(c.id, "Shorter", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.cut, None);
    let turns = h.store.list_turns(c.id).await.unwrap();
    assert_eq!(turns[1].cut, None);
}

#[tokio::test]
async fn tool_calls_of_a_cut_step_are_not_run() {
    let mut h = harness(Options::default()).await;
    h.server.push(
        ScriptedResponse::text("Let me look.")
            .with_tool_calls([ToolCallSpec::new("call_1", "GetCurrentTime", "{\"zo")])
            .finish_reason("length"),
    );
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "What time is it?", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.cut, Some(AnswerCut::OutputLimit));
    assert_eq!(h.server.requests().len(), 1, "no second step");
    let rows = h.rows(&c).await;
    assert!(
        !rows.iter().any(|r| matches!(r, HistoryRow::ToolCall(_))),
        "{rows:?}"
    );
    let events = h.drain_events();
    assert!(
        events.iter().any(|e| matches!(
            e,
            EventKind::Warning { message } if message.contains("were not run")
        )),
        "{events:?}"
    );
}

#[tokio::test]
async fn a_title_request_is_bounded_to_what_a_title_needs() {
    let h = harness(Options::default()).await;
    h.server.answer_when(
        |r| r.asks_for_title(),
        |_| ScriptedResponse::text("French greeting"),
    );
    h.server.push(ScriptedResponse::text("Bonjour !"));
    let c = h.conversation().await;
    let handle = h
        .service
        .start(
            c.id,
            "Say hello in French",
            SendOptions {
                title: true,
                ..SendOptions::default()
            },
        )
        .await
        .unwrap();
    handle.end.await.unwrap().unwrap();
    let title = tokio::time::timeout(Duration::from_secs(10), handle.title.unwrap())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(title.as_deref(), Some("French greeting"));
    let asked: Vec<_> = h
        .server
        .requests()
        .into_iter()
        .filter(smallebot_testkit::RecordedRequest::asks_for_title)
        .collect();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].body["max_tokens"], TITLE_MAX_TOKENS);
}
