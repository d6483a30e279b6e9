//! The tokenizer stays off the path to the first request: a turn before it is built
//! counts upper bounds and marks them provisional; exact counts follow once it is
//! ready; a bound too close to the threshold to decide builds it instead of
//! compressing on a guess.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use smallebot_agent::assembly::WarmUp;
use smallebot_agent::history::MESSAGE_OVERHEAD;
use smallebot_agent::tokenizer::Tokenizer;
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::{Conversation, HistoryRow};
use smallebot_core::repository::{ConversationRepository, HistoryRepository};
use smallebot_testkit::{Gate, ScriptedResponse, ToolCallSpec};

fn cold() -> Options {
    Options {
        warm_up: WarmUp::OnDemand,
        ..Options::default()
    }
}

/// The exact count of every message and tool call row, from an independent tokenizer,
/// beside the stored one: `(stored, exact)`.
fn stored_and_exact(rows: &[HistoryRow], max_result: usize) -> Vec<(i64, i64)> {
    let tokenizer = Tokenizer::new("o200k_base").unwrap();
    let count = |text: &str| i64::try_from(tokenizer.count(text)).unwrap();
    rows.iter()
        .filter_map(|row| match row {
            HistoryRow::Message(m) => Some((m.token_count, MESSAGE_OVERHEAD + count(&m.content))),
            HistoryRow::ToolCall(c) => {
                let result = c.result.as_deref().map_or(0, |r| {
                    let sent =
                        smallebot_core::rules::truncation::truncate_tool_result(r, max_result);
                    MESSAGE_OVERHEAD + count(&sent)
                });
                Some((
                    c.token_count,
                    MESSAGE_OVERHEAD + count(&c.tool_name) + count(&c.arguments) + result,
                ))
            }
            HistoryRow::ThinkBlock(_) => None,
        })
        .collect()
}

async fn stored(h: &Harness, c: &Conversation) -> Conversation {
    h.store.get_conversation(c.id).await.unwrap().unwrap()
}

fn usage_exactness(events: &[EventKind]) -> Vec<bool> {
    events
        .iter()
        .filter_map(|e| match e {
            EventKind::ContextUsage {
                exact,
                reported: None,
                ..
            } => Some(*exact),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_turn_before_the_tokenizer_is_ready_never_builds_it_and_marks_its_counts() {
    let mut h = harness(cold()).await;
    let c = h.conversation().await;
    h.server
        .push(ScriptedResponse::text("Hello there, how can I help?"));
    h.service
        .send(c.id, "hello, are you there?", SendOptions::default())
        .await
        .unwrap();

    assert!(!h.tokenizer.is_ready(), "the turn built the tokenizer");
    assert_eq!(usage_exactness(&h.drain_events()), [false]);
    let read = stored(&h, &c).await;
    let rows = h.rows(&c).await;
    let first = rows.first().unwrap().seq();
    assert!(
        read.provisional_counts_from
            .is_some_and(|from| from <= first),
        "{:?}",
        read.provisional_counts_from
    );
    for (stored, exact) in stored_and_exact(&rows, 500) {
        assert!(
            stored >= exact,
            "a provisional count below the exact one: {stored} < {exact}"
        );
    }
    assert!(stored_and_exact(&rows, 500).iter().any(|(s, e)| s > e));

    // Once the tokenizer is ready, the next turn recounts before it starts.
    h.tokenizer.warm_up();
    h.server.push(ScriptedResponse::text("Still here."));
    h.service
        .send(c.id, "and now?", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(usage_exactness(&h.drain_events()), [true]);
    let read = stored(&h, &c).await;
    assert_eq!(read.provisional_counts_from, None);
    let rows = h.rows(&c).await;
    let pairs = stored_and_exact(&rows, 500);
    for (stored, exact) in &pairs {
        assert_eq!(stored, exact);
    }
    let total: i64 = pairs.iter().map(|(s, _)| s).sum();
    assert_eq!(read.context_tokens, total);
}

#[tokio::test]
async fn counts_are_settled_at_the_end_of_a_turn_when_the_tokenizer_got_ready() {
    let h = harness(cold()).await;
    let c = h.conversation().await;
    // The answer waits until the tokenizer got ready meanwhile, as with real models.
    let tokenizer_ready = Gate::new();
    h.server
        .push(ScriptedResponse::text("Answer.").hold_until(&tokenizer_ready));
    let mut events = h.service.subscribe(c.id);
    let service = std::sync::Arc::clone(&h.service);
    let send = tokio::spawn(async move {
        service
            .send(c.id, "question", SendOptions::default())
            .await
            .unwrap()
    });
    h.server
        .wait_for_requests(1, Duration::from_secs(10))
        .await
        .unwrap();
    assert!(!h.tokenizer.is_ready());
    let tokenizer = std::sync::Arc::clone(&h.tokenizer);
    tokio::task::spawn_blocking(move || tokenizer.warm_up())
        .await
        .unwrap();
    tokenizer_ready.open();
    // Whoever hears the turn end finds it settled and the conversation free: the
    // next message can be sent at once.
    loop {
        let event = events.recv().await.unwrap();
        if matches!(event.kind, EventKind::TurnCompleted { .. }) {
            break;
        }
    }
    assert!(!h.service.is_busy(c.id), "busy after TurnCompleted");
    let read = stored(&h, &c).await;
    assert_eq!(
        read.provisional_counts_from, None,
        "not settled at the turn's end"
    );
    for (stored, exact) in stored_and_exact(&h.rows(&c).await, 500) {
        assert_eq!(stored, exact);
    }
    send.await.unwrap();
}

#[tokio::test]
async fn a_bound_over_the_threshold_builds_the_tokenizer_instead_of_compressing() {
    // ~20 000 bytes but ~4 000 tokens: over 80% of a 10 000-token window as a bound,
    // well under it counted exactly.
    let mut h = harness(Options {
        context_window: 10_000,
        ..cold()
    })
    .await;
    let c = h.conversation().await;
    h.server.push(ScriptedResponse::text("Read it."));
    let long = "word ".repeat(4000);
    h.service
        .send(c.id, &long, SendOptions::default())
        .await
        .unwrap();
    let events = h.drain_events();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventKind::CompressionStarted { .. })),
        "compressed on a bound: {events:?}"
    );
    assert_eq!(usage_exactness(&events), [true]);
    assert_eq!(h.server.requests().len(), 1, "only the turn's request");
    assert!(h.tokenizer.is_ready());
    let read = stored(&h, &c).await;
    assert_eq!(read.provisional_counts_from, None);
    for (stored, exact) in stored_and_exact(&h.rows(&c).await, 500) {
        assert_eq!(stored, exact);
    }
}

#[tokio::test]
async fn a_bound_over_the_threshold_between_tool_steps_is_counted_not_compressed() {
    let mut h = harness(Options {
        context_window: 10_000,
        tool_result_max_length: 10_000,
        ..cold()
    })
    .await;
    let c = h.conversation().await;
    let args = serde_json::json!({"text": "word ", "repeat": 1900}).to_string();
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "c1", "Echo", args,
        )]));
    h.server.push(ScriptedResponse::text("Done."));
    h.service
        .send(c.id, "echo a lot", SendOptions::default())
        .await
        .unwrap();
    let events = h.drain_events();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventKind::CompressionStarted { .. })),
        "compressed on a bound: {events:?}"
    );
    assert_eq!(usage_exactness(&events), [false, true]);
    assert_eq!(h.server.requests().len(), 2);
    let read = stored(&h, &c).await;
    assert_eq!(read.provisional_counts_from, None);
    for (stored, exact) in stored_and_exact(&h.rows(&c).await, 10_000) {
        assert_eq!(stored, exact);
    }
}

#[tokio::test]
async fn the_estimate_asked_for_is_exact() {
    let h = harness(cold()).await;
    let c = h.conversation().await;
    h.server.push(ScriptedResponse::text("Hi."));
    h.service
        .send(c.id, "hi", SendOptions::default())
        .await
        .unwrap();
    let estimate = h.service.context_estimate(c.id).await.unwrap();
    assert!(estimate.exact);
    assert!(h.tokenizer.is_ready());
    let read = stored(&h, &c).await;
    assert_eq!(read.provisional_counts_from, None);
    assert_eq!(
        read.context_tokens,
        h.store.token_sum_after(c.id, 0).await.unwrap()
    );
}
