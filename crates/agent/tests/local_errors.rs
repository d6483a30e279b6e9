//! Issue 40, the server's words: error objects a server sends inside a stream, or as
//! an error body in its own shape, are shown as the server wrote them; those no retry
//! can pass (the context exceeded, an invalid request) are not retried.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::json;
use smallebot_application::pipeline::TurnOutcome;
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::{AnswerCut, Conversation, HistoryRow, Role, TurnStatus};
use smallebot_testkit::fixtures::{
    LLAMA_CPP_CONTEXT_EXCEEDED, LLAMA_CPP_EXCEEDS_CONTEXT_BODY, LLAMA_CPP_LENGTH,
};
use smallebot_testkit::{ScriptedResponse, error_body};

const CONTEXT_FULL: &str = "Context size has been exceeded.";

fn llama_error() -> serde_json::Value {
    json!({"error": {"code": 500, "message": CONTEXT_FULL, "type": "server_error"}})
}

/// A new conversation of `h` and the outcome of its first turn, `text`.
async fn ask(h: &Harness, text: &str) -> (Conversation, TurnOutcome) {
    let c = h.conversation().await;
    let outcome = h.service.send(c.id, text, SendOptions::default()).await;
    (c, outcome.unwrap())
}

fn warnings(events: &[EventKind]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::Warning { message } => Some(message.clone()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn llama_cpps_recorded_context_full_event_keeps_the_answer_cut_in_its_words() {
    let mut h = harness(Options::default()).await;
    h.server
        .push(ScriptedResponse::recorded(LLAMA_CPP_CONTEXT_EXCEEDED));
    let (c, outcome) = ask(&h, "Write a long story").await;
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert_eq!(outcome.cut, Some(AnswerCut::ContextFull));
    assert!(
        outcome.text.starts_with("Write a very long story"),
        "{}",
        outcome.text
    );
    assert_eq!(h.server.requests().len(), 1, "never retried");
    let events = h.drain_events();
    assert!(retries(&events).is_empty(), "{events:?}");
    let said = warnings(&events);
    assert!(
        said.iter()
            .any(|w| w.contains(&format!("\"{CONTEXT_FULL}\""))),
        "the server's words: {said:?}"
    );
    let rows = h.rows(&c).await;
    assert!(
        rows.iter().any(|r| matches!(
            r,
            HistoryRow::Message(m) if m.role == Role::Assistant && m.content.starts_with("Write a very")
        )),
        "the answer is stored: {rows:?}"
    );
}

#[tokio::test]
async fn a_context_full_event_before_any_answer_is_not_retried_and_fails_in_its_words() {
    let mut h = harness(Options::default()).await;
    // Before any text: the turn may compress once and try again (the overflow rule);
    // it never retries the same request.
    for _ in 0..2 {
        h.server
            .push(ScriptedResponse::text("never sent").error_event_at(0, llama_error()));
    }
    let (_, outcome) = ask(&h, "hello").await;
    assert_eq!(outcome.status, TurnStatus::Failed);
    let error = outcome.error.unwrap();
    assert!(error.contains(&format!("\"{CONTEXT_FULL}\"")), "{error}");
    let events = h.drain_events();
    assert!(retries(&events).is_empty(), "{events:?}");
    assert!(h.server.requests().len() <= 2);
}

#[tokio::test]
async fn an_invalid_request_in_a_stream_is_not_retried_and_a_server_failure_is() {
    // vLLM's shape, refused: once, in its words.
    let mut h = harness(Options::default()).await;
    let vllm = json!({"error": {"object": "error", "message": "Invalid tool_choice",
        "type": "BadRequestError", "param": null, "code": 400}});
    h.server
        .push(ScriptedResponse::text("Hi").error_event_at(1, vllm));
    let (_, outcome) = ask(&h, "hello").await;
    assert_eq!(outcome.status, TurnStatus::Failed);
    let error = outcome.error.unwrap();
    assert!(
        error.contains("\"Invalid tool_choice\" (BadRequestError)"),
        "{error}"
    );
    assert_eq!(h.server.requests().len(), 1);
    assert!(retries(&h.drain_events()).is_empty());

    // OpenAI's and Ollama's shapes, the server failing: retried, and the last one's
    // words given when the retries run out.
    let mut h = harness(Options {
        stream_max_retries: 1,
        ..Options::default()
    })
    .await;
    let openai = error_body("The server had an error", "server_error", None, None);
    let ollama = json!({"error": {"message": "model runner has unexpectedly stopped",
        "type": "api_error", "param": null, "code": null}});
    h.server
        .push(ScriptedResponse::text("Hi").error_event_at(1, openai));
    h.server
        .push(ScriptedResponse::text("Hi").error_event_at(1, ollama));
    let (_, outcome) = ask(&h, "hello").await;
    assert_eq!(outcome.status, TurnStatus::Failed);
    let error = outcome.error.unwrap();
    assert!(
        error.contains("\"model runner has unexpectedly stopped\" (api_error)"),
        "{error}"
    );
    let reasons: Vec<String> = retries(&h.drain_events())
        .into_iter()
        .map(|(_, _, r)| r)
        .collect();
    assert_eq!(reasons, ["server error"]);
}

#[tokio::test]
async fn error_bodies_in_the_servers_own_shape_are_read_and_context_errors_not_retried() {
    // llama.cpp's 400 has a numeric `code`: its message, not "malformed response".
    let h = harness(Options::default()).await;
    let body: serde_json::Value = serde_json::from_str(LLAMA_CPP_EXCEEDS_CONTEXT_BODY).unwrap();
    h.server
        .push(ScriptedResponse::http_error(400, body.clone()));
    h.server.push(ScriptedResponse::http_error(400, body));
    let (_, outcome) = ask(&h, "hello").await;
    let error = outcome.error.unwrap();
    assert!(
        error.contains("exceeds the available context size (256 tokens)"),
        "{error}"
    );

    // A 500 saying the context is full: not retried underneath (four attempts else).
    let mut h = harness(Options::default()).await;
    for _ in 0..2 {
        h.server
            .push(ScriptedResponse::http_error(500, llama_error()));
    }
    let (_, outcome) = ask(&h, "hello").await;
    assert_eq!(outcome.status, TurnStatus::Failed);
    assert!(outcome.error.unwrap().contains(CONTEXT_FULL));
    assert!(retries(&h.drain_events()).is_empty());
    assert!(
        h.server.requests().len() <= 2,
        "{}",
        h.server.requests().len()
    );
}

#[tokio::test]
async fn llama_cpps_recorded_length_end_is_a_cut_answer_with_its_cached_tokens() {
    let mut h = harness(Options::default()).await;
    h.server.push(ScriptedResponse::recorded(LLAMA_CPP_LENGTH));
    let (_, outcome) = ask(&h, "Say hello in French").await;
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert_eq!(outcome.cut, Some(AnswerCut::OutputLimit));
    assert_eq!(h.server.requests().len(), 1);
    let reported = h.drain_events().into_iter().find_map(|e| match e {
        EventKind::ContextUsage { reported, .. } => reported,
        _ => None,
    });
    assert_eq!(reported, Some(28), "the server's prompt_tokens");
}
