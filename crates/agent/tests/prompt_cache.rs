//! Issue 40, prompts that hit the cache: a server's prompt cache (llama.cpp's slot,
//! vLLM's prefix cache, OpenAI's prompt cache) reuses an unchanged beginning. Over
//! several turns with tool calls and a plan that changes at every step, each request
//! repeats the one before it byte for byte — system prompt, tools, every earlier
//! message — up to the text of the message that was newest then; only the task list
//! that followed that text moves on. The provider's cached tokens are passed on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod tasks_support;

use serde_json::{Value, json};
use smallebot_application::{EventKind, SendOptions};
use smallebot_testkit::{RecordedRequest, ScriptedResponse};
use tasks_support::{harness, step};

/// The message's text: its content, or its parts' texts joined.
fn text(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\u{0}"),
        _ => String::new(),
    }
}

/// Checks that `next` repeats `prev` up to the newest message's own text.
fn assert_prefix_kept(prev: &RecordedRequest, next: &RecordedRequest, at: usize) {
    assert_eq!(
        prev.body["tools"], next.body["tools"],
        "request {at}: tools"
    );
    let (old, new) = (
        prev.body["messages"].as_array().unwrap(),
        next.body["messages"].as_array().unwrap(),
    );
    assert!(new.len() > old.len(), "request {at} grows the history");
    let last = old.len() - 1;
    for i in 0..last {
        assert_eq!(
            serde_json::to_string(&old[i]).unwrap(),
            serde_json::to_string(&new[i]).unwrap(),
            "request {at}: message {i} changed"
        );
    }
    // The newest message then: the same, but for the task list after its text.
    let (was, is) = (text(&old[last]), text(&new[last]));
    let plan_at = was
        .find("\n\n# Task List\n")
        .or_else(|| was.find("# Task List\n"));
    let own = plan_at.map_or(was.as_str(), |at| &was[..at]);
    assert_eq!(
        own.trim_end_matches('\u{0}'),
        is,
        "request {at}: message {last}"
    );
    assert_eq!(old[last]["role"], new[last]["role"]);
}

#[tokio::test]
async fn every_request_repeats_the_one_before_it_up_to_its_newest_message() {
    let h = harness().await;
    let turns: [(&str, Vec<ScriptedResponse>); 3] = [
        (
            "Plan the notes",
            vec![
                step("a1", "AddTask", json!({"title": "Write notes"})),
                step("a2", "StartTask", json!({"taskId": "1"})),
                step(
                    "a3",
                    "WriteFile",
                    json!({"path": "notes.md", "content": "hello"}),
                ),
                ScriptedResponse::text("Started."),
            ],
        ),
        (
            "Finish them",
            vec![
                step("b1", "CompleteTask", json!({"taskId": "1"})),
                step("b2", "AddTask", json!({"title": "Review"})),
                ScriptedResponse::text("Done."),
            ],
        ),
        (
            "What time is it?",
            vec![
                step("c1", "GetCurrentTime", json!({})),
                ScriptedResponse::text("Noon."),
            ],
        ),
    ];
    let c = h.conversation().await;
    for (message, script) in turns {
        h.server.push_all(script);
        h.service
            .send(c, message, SendOptions::default())
            .await
            .unwrap();
    }
    let requests = h.server.requests();
    assert_eq!(requests.len(), 9);
    let plans = requests
        .iter()
        .filter(|r| tasks_support::task_list_section(r).is_some())
        .count();
    assert!(plans >= 7, "the plan changes along the way: {plans}");
    for (at, pair) in requests.windows(2).enumerate() {
        assert_prefix_kept(&pair[0], &pair[1], at + 1);
    }
    // The system prompt is the same in every request.
    let system = &requests[0].body["messages"][0];
    assert!(requests.iter().all(|r| &r.body["messages"][0] == system));
}

#[tokio::test]
async fn the_providers_cached_tokens_are_passed_on() {
    let h = harness().await;
    h.server.push_all([
        step("a1", "GetCurrentTime", json!({})),
        ScriptedResponse::text("Noon.").usage_cached(120, 4, 96),
    ]);
    let c = h.conversation().await;
    h.service
        .send(c, "Time?", SendOptions::default())
        .await
        .unwrap();
    let cached: Vec<(Option<u64>, Option<u64>)> = h
        .drain_events()
        .into_iter()
        .filter_map(|e| match e {
            EventKind::ContextUsage {
                reported: Some(reported),
                cached,
                ..
            } => Some((Some(reported), cached)),
            _ => None,
        })
        .collect();
    assert_eq!(cached.last(), Some(&(Some(120), Some(96))), "{cached:?}");
}
