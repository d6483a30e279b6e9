//! Issue 3 acceptance 7: the estimate matches what is sent, and stored counts mean the
//! tokenizer only sees new text.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use serde_json::Value;
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::{NewMessage, Role};
use smallebot_core::repository::TurnRepository;
use smallebot_core::test_support::RowFixtures;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

#[tokio::test]
async fn the_estimate_equals_an_independent_count_of_the_request_within_two_percent() {
    let mut h = harness(Options::default()).await;
    let c = h.conversation().await;
    for i in 0..3 {
        let args =
            serde_json::json!({"text": format!("result number {i} ").repeat(40)}).to_string();
        h.server
            .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
                format!("c{i}"),
                "Echo",
                args,
            )]));
        h.server.push(ScriptedResponse::text(format!(
            "Answer {i}: the tool said something long."
        )));
        h.service
            .send(
                c.id,
                &format!("question {i} with some words in it"),
                SendOptions::default(),
            )
            .await
            .unwrap();
    }
    let events = h.drain_events();
    let reported = events
        .iter()
        .filter(|e| {
            matches!(
                e,
                EventKind::ContextUsage {
                    reported: Some(_),
                    ..
                }
            )
        })
        .count();
    assert_eq!(
        reported,
        h.server.requests().len(),
        "the provider's count is shown beside each estimate"
    );
    let usages: Vec<u64> = events
        .into_iter()
        .filter_map(|e| match e {
            EventKind::ContextUsage {
                used,
                reported: None,
                ..
            } => Some(used),
            _ => None,
        })
        .collect();
    let requests = h.server.requests();
    assert_eq!(usages.len(), requests.len());

    for (used, request) in usages.iter().zip(&requests) {
        let actual = independent_count(&h.tokenizer, request);
        let diff = (*used as f64 - actual as f64).abs() / actual as f64;
        assert!(
            diff <= 0.02,
            "estimate {used} vs sent {actual} ({:.2}%)",
            diff * 100.0
        );
    }
}

#[tokio::test]
async fn with_5000_stored_messages_only_new_text_is_tokenized() {
    let h = harness(Options::default()).await;
    let c = h.conversation().await;
    // 5,000 stored messages with their counts, written directly.
    for i in 0..2500 {
        let turn = h.store.start_turn(c.id, false).await.unwrap();
        for (role, text) in [
            (Role::User, format!("question {i}")),
            (Role::Assistant, format!("answer {i}")),
        ] {
            h.store
                .append_message(&NewMessage {
                    conversation_id: c.id,
                    turn_id: turn.id,
                    role,
                    content: text,
                    token_count: 7,
                })
                .await
                .unwrap();
        }
        h.store
            .finish_turn(
                turn.id,
                smallebot_core::entities::TurnStatus::Completed,
                None,
            )
            .await
            .unwrap();
    }
    h.server.push(ScriptedResponse::text("ok"));
    let before = h.tokenizer.count_calls();
    h.service
        .send(c.id, "one more", SendOptions::default())
        .await
        .unwrap();
    let calls = h.tokenizer.count_calls() - before;
    assert!(
        calls <= 10,
        "tokenizer called {calls} times for one turn over 5,000 stored messages"
    );
    let request: Value = h.server.requests()[0].body.clone();
    assert_eq!(request["messages"].as_array().unwrap().len(), 1 + 5000 + 1);
}
