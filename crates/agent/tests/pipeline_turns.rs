//! Issue 3 acceptance 1–3 and 5: scripted turns end to end through the testkit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::*;
use smallebot_agent::config::ToolHistoryFormat;
use smallebot_application::{EventKind, PipelineError, SendOptions};
use smallebot_core::entities::{HistoryRow, Role, ToolCallStatus, TurnStatus};
use smallebot_core::repository::TurnRepository;
use smallebot_testkit::{Gate, ScriptedResponse, ToolCallSpec};

#[tokio::test]
async fn a_turn_with_a_tool_call_is_stored_in_order_and_sent_natively() {
    let mut h = harness(Options::default()).await;
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "call_1",
            "GetCurrentTime",
            "{}",
        )]));
    h.server
        .push(ScriptedResponse::text("It is noon.").chunk_size(3));
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "What time is it?", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert_eq!(outcome.text, "It is noon.");

    let turns = h.store.list_turns(c.id).await.unwrap();
    assert_eq!(turns.len(), 1);
    assert_eq!(turns[0].status, TurnStatus::Completed);
    let rows = h.rows(&c).await;
    let shape: Vec<String> = rows
        .iter()
        .map(|r| match r {
            HistoryRow::Message(m) => format!("{}:{}", m.role.as_str(), m.content),
            HistoryRow::ToolCall(t) => {
                format!("tool:{}:{}:{}", t.call_id, t.tool_name, t.status.as_str())
            }
            HistoryRow::ThinkBlock(_) => "think".into(),
        })
        .collect();
    assert_eq!(
        shape,
        [
            "user:What time is it?",
            "assistant:",
            "tool:call_1:GetCurrentTime:ok",
            "assistant:It is noon."
        ]
    );
    let HistoryRow::ToolCall(call) = &rows[2] else {
        panic!()
    };
    assert_eq!(call.arguments, "{}");
    assert!(call.result.as_deref().is_some_and(|r| r.contains("UTC")));
    assert!(rows.windows(2).all(|w| w[0].seq() < w[1].seq()));

    let requests = h.server.requests();
    assert_eq!(requests.len(), 2);
    for r in &requests {
        assert_eq!(
            user_count(r, "What time is it?"),
            1,
            "the user message goes exactly once"
        );
        assert_eq!(r.body["stream"], true);
        assert_eq!(r.body["stream_options"]["include_usage"], true);
        assert_eq!(r.body["messages"][0]["role"], "system");
    }
    let second = messages(&requests[1]);
    let assistant = second.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(assistant["tool_calls"][0]["id"], "call_1");
    assert_eq!(
        assistant["tool_calls"][0]["function"]["name"],
        "GetCurrentTime"
    );
    let tools = tool_messages(&requests[1]);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].0, "call_1");
    assert!(tools[0].1.contains("UTC"));

    let events = h.drain_events();
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            EventKind::TurnStarted => Some("started"),
            EventKind::ToolCallStarted { .. } => Some("tool_started"),
            EventKind::ToolCallCompleted { .. } => Some("tool_completed"),
            EventKind::TurnCompleted { .. } => Some("completed"),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        ["started", "tool_started", "tool_completed", "completed"]
    );
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            EventKind::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "It is noon.");
}

async fn earlier_result_as_sent(
    max: usize,
    format: ToolHistoryFormat,
    result_text: &str,
) -> (String, Vec<serde_json::Value>) {
    let h = harness(Options {
        tool_result_max_length: max,
        format,
        ..Options::default()
    })
    .await;
    let args = serde_json::json!({"text": result_text}).to_string();
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "c1", "Echo", args,
        )]));
    h.server.push(ScriptedResponse::text("done"));
    h.server.push(ScriptedResponse::text("second answer"));
    let c = h.conversation().await;
    h.service
        .send(c.id, "first", SendOptions::default())
        .await
        .unwrap();
    h.service
        .send(c.id, "second", SendOptions::default())
        .await
        .unwrap();
    let requests = h.server.requests();
    let next_turn = &requests[2];
    assert_eq!(user_count(next_turn, "first"), 1);
    assert_eq!(user_count(next_turn, "second"), 1);
    let tools = tool_messages(next_turn);
    let sent = tools.first().map(|t| t.1.clone()).unwrap_or_default();
    (sent, messages(next_turn))
}

#[tokio::test]
async fn next_turn_carries_earlier_results_cut_at_the_limit() {
    for max in [100usize, 500, 10_000] {
        let long: String = (0..max * 2)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let (sent, _) = earlier_result_as_sent(max, ToolHistoryFormat::Native, &long).await;
        let marker = format!("... [truncated: {max} characters left out]\n");
        assert!(
            sent.contains(&marker),
            "max {max}: says how much was left out"
        );
        let kept = sent.chars().count() - marker.chars().count();
        assert_eq!(kept, max, "max {max}: head + tail keep exactly the limit");
        assert!(sent.starts_with(&long[..max / 2]), "head kept");
        assert!(sent.ends_with(&long[long.len() - max / 5..]), "tail kept");
    }
    // A short result is sent whole.
    let (sent, _) = earlier_result_as_sent(100, ToolHistoryFormat::Native, "short").await;
    assert_eq!(sent, "short");
}

#[tokio::test]
async fn cjk_and_emoji_results_are_cut_on_character_boundaries() {
    let text = "日本語🎉".repeat(100);
    let (sent, _) = earlier_result_as_sent(100, ToolHistoryFormat::Native, &text).await;
    let marker = "... [truncated: 300 characters left out]\n";
    assert!(sent.contains(marker), "{sent}");
    let kept: String = sent.replace(marker, "");
    assert_eq!(kept.chars().count(), 100);
    assert!(kept.chars().all(|c| "日本語🎉".contains(c)));
}

#[tokio::test]
async fn inline_format_sends_the_seed_lines() {
    let (sent, msgs) = earlier_result_as_sent(500, ToolHistoryFormat::Inline, "hello").await;
    assert_eq!(sent, "", "no native tool messages for earlier turns");
    let assistant_texts: Vec<&str> = msgs
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        assistant_texts
            .iter()
            .any(|t| t.contains(r#"[Tool: Echo({"text":"hello"})] → hello"#)),
        "{assistant_texts:?}"
    );
    assert!(msgs.iter().all(|m| m.get("tool_calls").is_none()));
}

#[tokio::test]
async fn two_interleaved_tool_calls_are_answered_under_their_own_ids() {
    let h = harness(Options::default()).await;
    h.server.push(
        ScriptedResponse::tool_calls([
            ToolCallSpec::new("call_a", "Sleepy", r#"{"ms": 150}"#),
            ToolCallSpec::new("call_b", "Echo", r#"{"text": "bee"}"#),
        ])
        .interleaved()
        .chunk_size(2),
    );
    h.server.push(ScriptedResponse::text("both done"));
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "go", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    let rows = h.rows(&c).await;
    let calls: Vec<(String, String)> = rows
        .iter()
        .filter_map(|r| match r {
            HistoryRow::ToolCall(t) => Some((t.call_id.clone(), t.result.clone().unwrap())),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("call_a".into(), "done 150".into()),
            ("call_b".into(), "bee".into())
        ]
    );
    let sent = tool_messages(&h.server.requests()[1]);
    assert_eq!(
        sent,
        [
            ("call_a".into(), "done 150".into()),
            ("call_b".into(), "bee".into())
        ]
    );
}

#[tokio::test]
async fn invalid_tool_arguments_become_an_error_result_and_the_turn_goes_on() {
    let h = harness(Options::default()).await;
    h.server
        .push(ScriptedResponse::tool_calls([ToolCallSpec::new(
            "bad",
            "Echo",
            "{not json",
        )]));
    h.server.push(ScriptedResponse::text("sorry, fixed"));
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c.id, "go", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    let sent = tool_messages(&h.server.requests()[1]);
    assert_eq!(sent[0].0, "bad");
    assert!(
        sent[0]
            .1
            .starts_with("Error: the arguments of Echo are not valid JSON"),
        "{}",
        sent[0].1
    );
    let rows = h.rows(&c).await;
    assert!(
        rows.iter()
            .any(|r| matches!(r, HistoryRow::ToolCall(t) if t.status == ToolCallStatus::Error))
    );
}

#[tokio::test]
async fn cancel_mid_stream_keeps_partial_text() {
    let h = harness(Options::default()).await;
    // The answer stops after three pieces: only the cancel ends the turn.
    let never = Gate::new();
    h.server.push(
        ScriptedResponse::text("one two three four five six seven eight nine ten")
            .chunk_size(4)
            .pause_after_chunks(3, &never),
    );
    let c = h.conversation().await;
    let mut events = h.service.subscribe(c.id);
    let service = std::sync::Arc::clone(&h.service);
    let task =
        tokio::spawn(async move { service.send(c.id, "count", SendOptions::default()).await });
    // Wait for some text, then cancel.
    loop {
        match events.recv().await.unwrap().kind {
            EventKind::TextDelta { .. } => break,
            _ => continue,
        }
    }
    assert!(h.service.cancel(c.id));
    let outcome = task.await.unwrap().unwrap();
    assert_eq!(outcome.status, TurnStatus::Cancelled);
    assert!(!outcome.text.is_empty());
    assert!(outcome.text.len() < "one two three four five six seven eight nine ten".len());
    let rows = h.rows(&c).await;
    let stored: Vec<_> = rows
        .iter()
        .filter_map(|r| match r {
            HistoryRow::Message(m) if m.role == Role::Assistant => Some(m.content.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(stored, std::slice::from_ref(&outcome.text));
    assert_eq!(
        h.store.list_turns(c.id).await.unwrap()[0].status,
        TurnStatus::Cancelled
    );
}

#[tokio::test]
async fn a_second_send_while_a_turn_runs_is_busy_and_other_conversations_run_in_parallel() {
    let h = harness(Options::default()).await;
    // Both answers are held until the checks below are done, however slow the machine.
    let answers = Gate::new();
    let held = answers.clone();
    h.server.respond_with(move |req| {
        let text = req.last_user_text().unwrap_or_default();
        ScriptedResponse::text(format!("echo {text}")).hold_until(&held)
    });
    let a = h.conversation().await;
    let b = h.conversation().await;
    let (s1, s2, s3) = (h.service.clone(), h.service.clone(), h.service.clone());
    let first = tokio::spawn(async move { s1.send(a.id, "in a", SendOptions::default()).await });
    let other = tokio::spawn(async move { s2.send(b.id, "in b", SendOptions::default()).await });
    // Both turns reached the model at once: the conversations run in parallel.
    h.server
        .wait_for_requests(2, Duration::from_secs(10))
        .await
        .unwrap();
    let busy = s3.send(a.id, "again", SendOptions::default()).await;
    assert!(
        matches!(busy, Err(PipelineError::Busy(id)) if id == a.id),
        "{busy:?}"
    );
    // Deleting and compacting wait for the turn too.
    let delete = s3.delete_conversation(a.id).await;
    assert!(matches!(delete, Err(PipelineError::Busy(_))), "{delete:?}");
    let compact = s3.compact(a.id, None).await;
    assert!(
        matches!(compact, Err(PipelineError::Busy(_))),
        "{compact:?}"
    );
    answers.open();
    let first = first.await.unwrap().unwrap();
    let other = other.await.unwrap().unwrap();
    assert_eq!(first.status, TurnStatus::Completed);
    assert_eq!(first.text, "echo in a");
    assert_eq!(other.status, TurnStatus::Completed);
    assert_eq!(other.text, "echo in b");
    // Not busy any more.
    let again = h
        .service
        .send(a.id, "again", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(again.status, TurnStatus::Completed);
}
