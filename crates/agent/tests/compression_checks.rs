//! Issue 40: a summary is checked before it replaces anything. One that would not make
//! the context smaller, is empty, is mostly chat-template control tokens or the same
//! passage over and over (the real model's answers, recorded) is refused: the history
//! stays as it was and the failure is said in words. A compression that leaves the
//! context above the threshold says so, and the turn does not compress again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod compression_support;

use common::*;
use compression_support::*;
use smallebot_application::events::CompressionTrigger;
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::Conversation;
use smallebot_testkit::fixtures::{LLAMA_CPP_SUMMARY_CONTROL_TOKENS, LLAMA_CPP_SUMMARY_REPETITION};
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

/// A conversation of `turns` short turns (more than the two kept verbatim).
async fn conversation_of(h: &Harness, turns: usize) -> Conversation {
    let c = h.conversation().await;
    for i in 0..turns {
        h.server.push(ScriptedResponse::text(format!("answer {i}")));
        h.service
            .send(c.id, &format!("question {i}"), SendOptions::default())
            .await
            .unwrap();
    }
    c
}

#[tokio::test]
async fn summaries_that_are_no_summary_are_refused_and_nothing_is_replaced() {
    let cases = [
        (
            ScriptedResponse::recorded(LLAMA_CPP_SUMMARY_CONTROL_TOKENS),
            "chat-template control tokens",
        ),
        (
            ScriptedResponse::recorded(LLAMA_CPP_SUMMARY_REPETITION),
            "the summary repeats itself",
        ),
        (
            // Longer than the three short turns it would replace.
            ScriptedResponse::text(filler("long", 400)),
            "would not make the context smaller",
        ),
        (ScriptedResponse::text("  \n"), "empty summary"),
    ];
    for (summary, said) in cases {
        let mut h = harness(Options::default()).await;
        let c = conversation_of(&h, 3).await;
        let rows_before = h.rows(&c).await;
        let _ = h.drain_events();
        h.server.push(summary);
        let report = h.service.compact(c.id, None).await.unwrap();
        assert!(!report.ok, "{said}: {report:?}");
        assert!(report.detail.contains(said), "{said}: {}", report.detail);
        assert_eq!(report.tokens_after, report.tokens_before);
        let stored = fresh(&h, &c).await;
        assert_eq!(stored.compressed_context, None, "{said}");
        assert_eq!(stored.compressed_through_seq, None, "{said}");
        assert_eq!(h.rows(&c).await, rows_before, "{said}");
        let events = h.drain_events();
        assert!(
            events.iter().any(|e| matches!(
                e,
                EventKind::CompressionCompleted { ok: false, detail, .. } if detail.contains(said)
            )),
            "the failure in words: {events:?}"
        );
    }
}

#[tokio::test]
async fn a_good_summary_still_replaces_what_it_summarizes() {
    let h = harness(Options::default()).await;
    let c = conversation_of(&h, 6).await;
    h.server.push(ScriptedResponse::text(
        "## Summary\nThe person asked question 0; it was answered.",
    ));
    let report = h.service.compact(c.id, None).await.unwrap();
    assert!(report.ok, "{}", report.detail);
    assert!(report.tokens_after < report.tokens_before);
    assert!(fresh(&h, &c).await.compressed_context.is_some());
}

#[tokio::test]
async fn still_above_the_threshold_after_compressing_is_said_and_not_tried_again_in_the_turn() {
    let mut h = harness(Options {
        context_window: 4_000,
        compression_threshold: 0.5,
        ..Options::default()
    })
    .await;
    let c = conversation_of(&h, 3).await;
    let _ = h.drain_events();
    // A turn whose tool results push the context over the threshold at each step; the
    // summary request is answered with control tokens (refused) every time it comes.
    h.server.answer_when(is_summary_request, |_| {
        ScriptedResponse::recorded(LLAMA_CPP_SUMMARY_CONTROL_TOKENS)
    });
    for i in 0..5 {
        h.server
            .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
                format!("call_{i}"),
                "Echo",
                format!(r#"{{"text":"{}"}}"#, filler(&format!("r{i}"), 80)),
            )]));
    }
    h.server.push(ScriptedResponse::text("done"));
    let outcome = h
        .service
        .send(c.id, "go", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.text, "done", "{:?}", outcome.error);
    let summaries = h
        .server
        .requests()
        .iter()
        .filter(|r| is_summary_request(r))
        .count();
    let events = h.drain_events();
    let mid_turn: Vec<_> = compressions(&events)
        .into_iter()
        .filter(|(trigger, ..)| *trigger == CompressionTrigger::MidTurn)
        .collect();
    let used = estimates(&events);
    assert_eq!(
        mid_turn.len(),
        1,
        "one try in the turn: {used:?} {mid_turn:?}"
    );
    assert!(summaries <= 2, "{summaries} summary requests");
    assert!(
        events.iter().any(|e| matches!(
            e,
            EventKind::Warning { message } if message.contains("the context is still at")
                && message.contains("without compressing again")
        )),
        "{events:?}"
    );
}
