//! Issue 4: automatic compression before a turn, between tool steps and on overflow.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod compression_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use compression_support::*;
use smallebot_application::events::CompressionTrigger;
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::{HistoryRow, Role, TurnStatus};
use smallebot_core::repository::HistoryRepository;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

#[tokio::test]
async fn before_a_turn_older_turns_are_summarized_and_the_recent_ones_kept_verbatim() {
    let mut h = harness(Options {
        context_window: 1500,
        ..Options::default()
    })
    .await;
    let summaries = Arc::new(AtomicUsize::new(0));
    h.server.respond_with(responder(Arc::clone(&summaries)));
    let c = h.conversation().await;
    let mut sent = Vec::new();
    for i in 0..12 {
        let text = format!("turn{i} {}", filler(&format!("t{i}"), 60));
        h.service
            .send(c.id, &text, SendOptions::default())
            .await
            .unwrap();
        sent.push(text);
        if summaries.load(Ordering::SeqCst) == 1 {
            break;
        }
    }
    assert_eq!(
        summaries.load(Ordering::SeqCst),
        1,
        "a compression happened"
    );
    let events = h.drain_events();
    let done = compressions(&events);
    assert_eq!(done.len(), 1);
    let (trigger, ok, before, after) = done[0];
    assert_eq!(trigger, CompressionTrigger::BeforeTurn);
    assert!(ok);
    assert!(after < before, "the estimate drops: {before} → {after}");
    assert!(events.iter().any(|e| matches!(
        e,
        EventKind::CompressionStarted {
            trigger: CompressionTrigger::BeforeTurn,
            ..
        }
    )));

    let requests = h.server.requests();
    let summary_request = requests.iter().find(|r| is_summary_request(r)).unwrap();
    let summary_text = summary_request.last_user_text().unwrap();
    // Everything but the last 2 stored turns is in it; the last 2 are not.
    let last_turn = sent.len() - 1; // the turn whose send triggered the compression
    for (i, text) in sent.iter().enumerate().take(last_turn) {
        let in_summary = summary_text.contains(text.as_str());
        let kept = i + 2 >= last_turn;
        assert_eq!(
            in_summary, !kept,
            "turn {i} of {last_turn}: in summary {in_summary}"
        );
    }
    assert!(
        !summary_text.contains(sent[last_turn].as_str()),
        "the new message is not summarized"
    );

    let conversation = fresh(&h, &c).await;
    let through = conversation.compressed_through_seq.unwrap();
    assert!(conversation.compressed_at.is_some());
    assert!(
        conversation
            .compressed_context
            .as_deref()
            .unwrap()
            .starts_with("SUMMARY-1")
    );
    let rows = h.store.rows_after(c.id, 0).await.unwrap();
    let summarized_last = rows.iter().rfind(|r| r.seq() <= through).unwrap();
    assert!(matches!(summarized_last, HistoryRow::Message(m) if m.role == Role::Assistant));
    assert_eq!(
        summarized_last.seq(),
        through,
        "the boundary is the last summarized row"
    );

    // The request after compression: summary in the system prompt, kept turns verbatim,
    // nothing at or before the boundary.
    let next = requests
        .iter()
        .rev()
        .find(|r| !is_summary_request(r))
        .unwrap();
    assert!(system_prompt(next).contains("# Conversation Summary\nSUMMARY-1"));
    for (seq, text) in user_texts(&rows) {
        let count = user_count(next, &text);
        assert_eq!(count, usize::from(seq > through), "message at seq {seq}");
    }
    // Nothing was deleted.
    assert_eq!(user_texts(&rows).len(), sent.len());
    // The estimate after compression is what the next request really costs: system
    // prompt with the summary + rows after the boundary + schemas.
    let after_compression = estimates(
        events
            .iter()
            .skip_while(|e| !matches!(e, EventKind::CompressionCompleted { .. })),
    );
    let actual = independent_count(&h.tokenizer, next);
    let diff = (after_compression[0] as f64 - actual as f64).abs() / actual as f64;
    assert!(
        diff <= 0.02,
        "estimate {} vs sent {actual}",
        after_compression[0]
    );
    assert!(after_compression[0] < before);
}

#[tokio::test]
async fn a_second_compression_merges_the_first_and_summarizes_each_row_once_even_with_equal_timestamps()
 {
    let mut h = harness(Options {
        context_window: 1500,
        ..Options::default()
    })
    .await;
    let summaries = Arc::new(AtomicUsize::new(0));
    h.server.respond_with(responder(Arc::clone(&summaries)));
    let c = h.conversation().await;
    let mut sent = Vec::new();
    for i in 0..30 {
        let text = format!("turn{i} {}", filler(&format!("t{i}"), 60));
        h.service
            .send(c.id, &text, SendOptions::default())
            .await
            .unwrap();
        sent.push(text);
        // Every stored timestamp equal: order must come from seq alone.
        for sql in [
            "UPDATE messages SET created_at = '2026-01-01T00:00:00.000Z'",
            "UPDATE turns SET created_at = '2026-01-01T00:00:00.000Z'",
        ] {
            sqlx::query(sql).execute(h.store.pool()).await.unwrap();
        }
        if summaries.load(Ordering::SeqCst) == 2 {
            break;
        }
    }
    assert_eq!(summaries.load(Ordering::SeqCst), 2);
    let summary_requests: Vec<String> = h
        .server
        .requests()
        .iter()
        .filter(|r| is_summary_request(r))
        .map(|r| r.last_user_text().unwrap())
        .collect();
    assert!(!summary_requests[0].contains("## Previous summary"));
    assert!(summary_requests[1].contains("## Previous summary"));
    assert!(summary_requests[1].contains("SUMMARY-1"));
    let conversation = fresh(&h, &c).await;
    let through = conversation.compressed_through_seq.unwrap();
    let rows = h.store.rows_after(c.id, 0).await.unwrap();
    for (seq, text) in user_texts(&rows) {
        let times: usize = summary_requests
            .iter()
            .filter(|s| s.contains(text.as_str()))
            .count();
        if seq <= through {
            assert_eq!(times, 1, "row {seq} summarized exactly once");
        } else {
            assert_eq!(times, 0, "row {seq} after the boundary is not summarized");
        }
    }
    assert!(compressions(&h.drain_events()).iter().all(|c| c.1));
}

#[tokio::test]
async fn mid_turn_compression_lets_the_tool_loop_finish() {
    let mut h = harness(Options {
        context_window: 3000,
        tool_result_max_length: 10_000,
        ..Options::default()
    })
    .await;
    let summaries = Arc::new(AtomicUsize::new(0));
    let s = Arc::clone(&summaries);
    h.server.respond_with(move |req| {
        if is_summary_request(req) {
            s.fetch_add(1, Ordering::SeqCst);
            return ScriptedResponse::text("SUMMARY: earlier small talk");
        }
        let last = req.last_user_text().unwrap_or_default();
        let tool_answers = req
            .messages()
            .iter()
            .filter(|m| m["role"] == "tool")
            .count();
        if last.starts_with("big") && req.last_role() == Some("user") {
            let args = serde_json::json!({"text": "word ", "repeat": 2000}).to_string();
            ScriptedResponse::tool_calls([ToolCallSpec::new("call_big", "Echo", args)])
        } else if req.last_role() == Some("tool") && tool_answers == 1 {
            ScriptedResponse::tool_calls([ToolCallSpec::new(
                "call_small",
                "Echo",
                r#"{"text":"small"}"#,
            )])
        } else {
            ScriptedResponse::text(format!("ack {}", req.index))
        }
    });
    let c = h.conversation().await;
    for i in 0..3 {
        h.service
            .send(
                c.id,
                &format!("chat{i} {}", filler("c", 40)),
                SendOptions::default(),
            )
            .await
            .unwrap();
    }
    let outcome = h
        .service
        .send(c.id, "big job please", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    let done = compressions(&h.drain_events());
    assert!(
        done.iter()
            .any(|(t, ok, ..)| *t == CompressionTrigger::MidTurn && *ok),
        "{done:?}"
    );
    // The step after the compression still answers both calls under their ids.
    let last = h
        .server
        .requests()
        .into_iter()
        .rev()
        .find(|r| !is_summary_request(r))
        .unwrap();
    let ids: Vec<String> = tool_messages(&last).into_iter().map(|(id, _)| id).collect();
    assert_eq!(ids, ["call_big", "call_small"]);
    assert!(system_prompt(&last).contains("# Conversation Summary"));
}

#[tokio::test]
async fn overflow_compresses_and_retries_once() {
    let mut h = harness(Options::default()).await;
    let c = h.conversation().await;
    for i in 0..4 {
        h.server.push(ScriptedResponse::text(format!("answer {i}")));
        h.service
            .send(c.id, &format!("question {i}"), SendOptions::default())
            .await
            .unwrap();
    }
    h.server.push(ScriptedResponse::context_length_exceeded());
    h.server
        .push(ScriptedResponse::text("SUMMARY: four questions"));
    h.server.push(ScriptedResponse::text("fits now"));
    let outcome = h
        .service
        .send(c.id, "question 4", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert_eq!(outcome.text, "fits now");
    let done = compressions(&h.drain_events());
    assert_eq!(
        done.iter().map(|d| (d.0, d.1)).collect::<Vec<_>>(),
        [(CompressionTrigger::Overflow, true)]
    );
    let retried = h.server.requests().last().cloned().unwrap();
    assert!(system_prompt(&retried).contains("SUMMARY: four questions"));

    // Overflow twice: the turn fails clearly, nothing lost.
    h.server.push(ScriptedResponse::context_length_exceeded());
    h.server
        .push(ScriptedResponse::text("SUMMARY: five questions"));
    h.server.push(ScriptedResponse::context_length_exceeded());
    let outcome = h
        .service
        .send(c.id, "question 5", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Failed);
    assert!(
        outcome
            .error
            .unwrap()
            .contains("does not fit the model's context window even after compression")
    );
    let rows = h.store.rows_after(c.id, 0).await.unwrap();
    assert!(user_texts(&rows).iter().any(|(_, t)| t == "question 5"));
}

#[tokio::test]
async fn a_window_smaller_than_the_fixed_prompt_warns_once_and_never_compresses() {
    let mut h = harness(Options {
        // The system prompt and the three tools' schemas alone are more than this.
        context_window: 100,
        ..Options::default()
    })
    .await;
    let summaries = Arc::new(AtomicUsize::new(0));
    h.server.respond_with(responder(Arc::clone(&summaries)));
    let c = h.conversation().await;
    for i in 0..4 {
        let outcome = h
            .service
            .send(c.id, &format!("turn {i}"), SendOptions::default())
            .await
            .unwrap();
        assert_eq!(outcome.status, TurnStatus::Completed);
    }
    let events = h.drain_events();
    assert_eq!(
        summaries.load(Ordering::SeqCst),
        0,
        "no summary was asked for"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, EventKind::CompressionStarted { .. })),
        "no compression was tried"
    );
    let warnings: Vec<&String> = events
        .iter()
        .filter_map(|e| match e {
            EventKind::Warning { message } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("100-token context")
            && warnings[0].contains("compressing the history cannot help"),
        "{}",
        warnings[0]
    );
}
