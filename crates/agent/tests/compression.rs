//! Issue 4: context compression before and during a turn, on overflow and on request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use smallebot_application::events::CompressionTrigger;
use smallebot_application::{SendOptions, TurnEvent};
use smallebot_core::entities::{Conversation, HistoryRow, Role, TurnStatus};
use smallebot_core::repository::{ConversationRepository, HistoryRepository};
use smallebot_testkit::{RecordedRequest, ScriptedResponse, ToolCallSpec};

/// Answers summary requests with `SUMMARY-<n>` and everything else with a short echo.
fn responder(
    summaries: Arc<AtomicUsize>,
) -> impl Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync + 'static {
    move |req| {
        if is_summary_request(req) {
            let n = summaries.fetch_add(1, Ordering::SeqCst) + 1;
            ScriptedResponse::text(format!(
                "SUMMARY-{n}: the person asked about /srv/app/config.toml"
            ))
        } else {
            ScriptedResponse::text(format!("ack {}", req.index))
        }
    }
}

fn compressions(events: &[TurnEvent]) -> Vec<(CompressionTrigger, bool, u64, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            TurnEvent::CompressionCompleted {
                trigger,
                ok,
                tokens_before,
                tokens_after,
                ..
            } => Some((*trigger, *ok, *tokens_before, *tokens_after)),
            _ => None,
        })
        .collect()
}

fn user_texts(rows: &[HistoryRow]) -> Vec<(i64, String)> {
    rows.iter()
        .filter_map(|r| match r {
            HistoryRow::Message(m) if m.role == Role::User => Some((m.seq, m.content.clone())),
            _ => None,
        })
        .collect()
}

async fn fresh(h: &Harness, c: &Conversation) -> Conversation {
    h.store.get_conversation(c.id).await.unwrap().unwrap()
}

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
        TurnEvent::CompressionStarted {
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
    let after_compression: Vec<u64> = events
        .iter()
        .skip_while(|e| !matches!(e, TurnEvent::CompressionCompleted { .. }))
        .filter_map(|e| match e {
            TurnEvent::ContextUsage {
                used,
                reported: None,
                ..
            } => Some(*used),
            _ => None,
        })
        .collect();
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
async fn manual_compaction_sends_the_focus_and_says_when_there_is_nothing_to_do() {
    let mut h = harness(Options::default()).await;
    let c = h.conversation().await;
    h.server.push(ScriptedResponse::text("a0"));
    h.service
        .send(c.id, "only one turn", SendOptions::default())
        .await
        .unwrap();
    let before = fresh(&h, &c).await;
    let report = h.service.compact(c.id, None).await.unwrap();
    assert!(!report.ok);
    assert!(
        report.detail.contains("nothing to summarize"),
        "{}",
        report.detail
    );
    assert_eq!(fresh(&h, &c).await, before);

    for i in 1..4 {
        h.server.push(ScriptedResponse::text(format!("a{i}")));
        h.service
            .send(c.id, &format!("turn {i}"), SendOptions::default())
            .await
            .unwrap();
    }
    h.server
        .push(ScriptedResponse::text("SUMMARY: focused on the API"));
    let report = h
        .service
        .compact(c.id, Some("focus on the API"))
        .await
        .unwrap();
    assert!(report.ok, "{}", report.detail);
    let summary_request = h.server.requests().last().cloned().unwrap();
    assert!(
        summary_request
            .last_user_text()
            .unwrap()
            .contains("focus on: focus on the API")
    );
    let done = compressions(&h.drain_events());
    assert!(
        done.iter()
            .any(|d| d.0 == CompressionTrigger::Manual && d.1)
    );
}

async fn failing_compression_leaves_the_columns_alone(
    failure: ScriptedResponse,
    timeout: Duration,
) {
    let mut h = harness(Options {
        compression_timeout: timeout,
        ..Options::default()
    })
    .await;
    let c = h.conversation().await;
    for i in 0..4 {
        h.server.push(ScriptedResponse::text(format!("a{i}")));
        h.service
            .send(c.id, &format!("turn {i}"), SendOptions::default())
            .await
            .unwrap();
    }
    let before = fresh(&h, &c).await;
    h.server.push(failure);
    let report = h.service.compact(c.id, None).await.unwrap();
    assert!(!report.ok);
    let after = fresh(&h, &c).await;
    assert_eq!(
        (
            after.compressed_context,
            after.compressed_at,
            after.compressed_through_seq
        ),
        (
            before.compressed_context,
            before.compressed_at,
            before.compressed_through_seq
        )
    );
    assert!(compressions(&h.drain_events()).iter().any(|d| !d.1));
    // The conversation goes on.
    h.server.push(ScriptedResponse::text("still here"));
    let outcome = h
        .service
        .send(c.id, "next", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
}

#[tokio::test]
async fn summarizer_failures_change_nothing() {
    failing_compression_leaves_the_columns_alone(
        ScriptedResponse::http_error(
            400,
            serde_json::json!({"error":{"message":"bad","type":"invalid_request_error"}}),
        ),
        Duration::from_secs(10),
    )
    .await;
    failing_compression_leaves_the_columns_alone(
        ScriptedResponse::text("   \n "),
        Duration::from_secs(10),
    )
    .await;
    failing_compression_leaves_the_columns_alone(
        ScriptedResponse::text("too late").delay_before(Duration::from_secs(20)),
        Duration::from_millis(300),
    )
    .await;
}

#[tokio::test]
async fn an_input_larger_than_the_compaction_window_is_reduced_and_succeeds() {
    let h = harness(Options {
        compaction_window: Some(1200),
        tool_result_max_length: 2000,
        ..Options::default()
    })
    .await;
    let summaries = Arc::new(AtomicUsize::new(0));
    let s = Arc::clone(&summaries);
    h.server.respond_with(move |req| {
        if is_summary_request(req) {
            let n = s.fetch_add(1, Ordering::SeqCst) + 1;
            return ScriptedResponse::text(format!("PART-{n}"));
        }
        if req.last_role() == Some("user") {
            let args = serde_json::json!({"text": "data ", "repeat": 300}).to_string();
            return ScriptedResponse::tool_calls([ToolCallSpec::new(
                format!("c{}", req.index),
                "Echo",
                args,
            )]);
        }
        ScriptedResponse::text(format!("done {}", filler("d", 80)))
    });
    let c = h.conversation().await;
    for i in 0..6 {
        h.service
            .send(
                c.id,
                &format!("job {i} {}", filler("j", 80)),
                SendOptions::default(),
            )
            .await
            .unwrap();
    }
    let report = h.service.compact(c.id, None).await.unwrap();
    assert!(report.ok, "{}", report.detail);
    let summary_requests: Vec<RecordedRequest> = h
        .server
        .requests()
        .into_iter()
        .filter(is_summary_request)
        .collect();
    assert!(
        summary_requests
            .iter()
            .any(|r| r.last_user_text().unwrap().contains("[omitted to fit")),
        "middle tool results are dropped first"
    );
    assert!(
        summary_requests.len() > 1,
        "then the rows are summarized in chunks"
    );
    for later in &summary_requests[1..] {
        assert!(
            later
                .last_user_text()
                .unwrap()
                .contains("## Previous summary"),
            "chunks are merged"
        );
    }
    let stored = fresh(&h, &c).await.compressed_context.unwrap();
    assert_eq!(stored, format!("PART-{}", summary_requests.len()));
}

#[tokio::test]
async fn the_skill_file_is_the_prompt_and_a_compaction_model_answers() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("SKILL.md");
    std::fs::write(
        &skill,
        "---\nname: compact\n---\nCUSTOM-PROMPT-MARKER keep every path.",
    )
    .unwrap();
    let h = harness(Options {
        skill_path: Some(skill.clone()),
        compaction_model: Some("compact-model".into()),
        ..Options::default()
    })
    .await;
    let c = h.conversation().await;
    for i in 0..4 {
        h.server.push(ScriptedResponse::text(format!("a{i}")));
        h.service
            .send(c.id, &format!("turn {i}"), SendOptions::default())
            .await
            .unwrap();
    }
    h.server.push(ScriptedResponse::text("SUMMARY"));
    assert!(h.service.compact(c.id, None).await.unwrap().ok);
    let request = h.server.requests().last().cloned().unwrap();
    assert_eq!(
        system_prompt(&request),
        "CUSTOM-PROMPT-MARKER keep every path."
    );
    assert_eq!(request.model(), Some("compact-model"));
    assert_eq!(h.server.requests()[0].model(), Some("test-model"));

    // Editing the file changes the next prompt.
    std::fs::write(&skill, "EDITED-PROMPT").unwrap();
    for i in 4..7 {
        h.server.push(ScriptedResponse::text(format!("a{i}")));
        h.service
            .send(c.id, &format!("turn {i}"), SendOptions::default())
            .await
            .unwrap();
    }
    h.server.push(ScriptedResponse::text("SUMMARY 2"));
    assert!(h.service.compact(c.id, None).await.unwrap().ok);
    assert_eq!(
        system_prompt(&h.server.requests().last().cloned().unwrap()),
        "EDITED-PROMPT"
    );
}
