//! Issue 40, the server's limits: at first use the server is asked what it serves
//! (llama.cpp `/props`, vLLM `/v1/models`, Ollama `/api/show`); a models.json
//! `contextWindow` larger than that is warned about, none takes the server's, and a
//! server with one slot gets its title after the turn.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use smallebot_application::{EventKind, SendOptions};
use smallebot_testkit::fixtures::LLAMA_CPP_PROPS;
use smallebot_testkit::{Gate, RecordedRequest, ScriptedResponse};

fn props() -> Value {
    serde_json::from_str(LLAMA_CPP_PROPS).unwrap()
}

fn windows(events: &[EventKind]) -> Vec<u64> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::ContextUsage { window, .. } => Some(*window),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_context_window_larger_than_the_servers_is_warned_about_once() {
    let mut h = harness(Options {
        context_window: 8_192,
        ..Options::default()
    })
    .await;
    h.server.serve_info("/props", props());
    let c = h.conversation().await;
    for text in ["one", "two"] {
        h.server.push(ScriptedResponse::text("ok"));
        h.service
            .send(c.id, text, SendOptions::default())
            .await
            .unwrap();
    }
    let events = h.drain_events();
    let warned: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            EventKind::Warning { message } if message.contains("contextWindow") => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(warned.len(), 1, "{events:?}");
    assert!(
        warned[0].contains(
            "models.json says contextWindow 8192, but its server (llama.cpp) gives a request \
             only 4096 tokens"
        ),
        "{}",
        warned[0]
    );
    assert_eq!(h.server.info_requests("/props"), 1, "asked once");
    assert!(
        windows(&events).iter().all(|w| *w == 8_192),
        "models.json's is kept"
    );
}

#[tokio::test]
async fn without_a_context_window_the_servers_is_taken() {
    for (path, info, window) in [
        ("/props", props(), 4_096),
        (
            "/v1/models",
            json!({"object": "list", "data": [{"id": "test-model", "object": "model",
                "owned_by": "vllm", "max_model_len": 2_048}]}),
            2_048,
        ),
        (
            "/api/show",
            json!({"parameters": "num_ctx 3072", "model_info": {
                "general.architecture": "qwen2", "qwen2.context_length": 32_768}}),
            3_072,
        ),
    ] {
        let mut h = harness(Options {
            window_given: false,
            ..Options::default()
        })
        .await;
        h.server.serve_info(path, info);
        h.server.push(ScriptedResponse::text("ok"));
        let c = h.conversation().await;
        h.service
            .send(c.id, "hello", SendOptions::default())
            .await
            .unwrap();
        let events = h.drain_events();
        assert_eq!(
            windows(&events).first(),
            Some(&window),
            "{path}: {events:?}"
        );
        let sent = h.server.requests()[0].body["max_tokens"].as_u64().unwrap();
        assert!(
            sent < window,
            "{path}: the answer bounded within the window: {sent}"
        );
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, EventKind::Warning { .. })),
            "{path}: {events:?}"
        );
    }
}

#[tokio::test]
async fn a_server_reporting_one_slot_gets_the_title_after_the_turn() {
    let h = harness(Options::default()).await;
    h.server.serve_info("/props", props());
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
        .start(
            c.id,
            "Say hello",
            SendOptions {
                title: true,
                ..SendOptions::default()
            },
        )
        .await
        .unwrap();
    h.server
        .wait_for_requests(1, Duration::from_secs(10))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(h.server.request_count(), 1, "no title while the turn runs");
    gate.open();
    handle.end.await.unwrap().unwrap();
    assert_eq!(
        handle.title.unwrap().await.unwrap().unwrap().as_deref(),
        Some("Greeting")
    );
    let order: Vec<bool> = h
        .server
        .requests()
        .iter()
        .map(RecordedRequest::asks_for_title)
        .collect();
    assert_eq!(order, [false, true]);
}

#[tokio::test]
async fn a_server_that_answers_none_keeps_the_default_and_the_title_runs_alongside() {
    let mut h = harness(Options {
        context_window: 6_000,
        window_given: false,
        ..Options::default()
    })
    .await;
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
        .start(
            c.id,
            "Say hello",
            SendOptions {
                title: true,
                ..SendOptions::default()
            },
        )
        .await
        .unwrap();
    // Nothing says the server answers one request at a time: the title need not wait.
    let both = h
        .server
        .wait_for_requests(2, Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(both.iter().filter(|r| r.asks_for_title()).count(), 1);
    gate.open();
    handle.end.await.unwrap().unwrap();
    let events = h.drain_events();
    assert!(
        !windows(&events).is_empty() && windows(&events).iter().all(|w| *w == 6_000),
        "the configured default stays: {events:?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventKind::Warning { .. })),
        "no server, no warning: {events:?}"
    );
}
