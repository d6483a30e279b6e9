//! Issue 4: compression on request, its failures, oversized input, the skill prompt and the compaction model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod compression_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::*;
use compression_support::*;
use smallebot_application::SendOptions;
use smallebot_application::events::CompressionTrigger;
use smallebot_core::entities::TurnStatus;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, ToolCallSpec};

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

/// A home whose models.json points at `server`, with `agent` as its agent.json (none
/// when `None`), and a service built from it.
async fn service_of_home(
    home: &std::path::Path,
    server: &smallebot_testkit::TestModel,
    agent: Option<serde_json::Value>,
) -> smallebot_application::ConversationService {
    let models = serde_json::json!({"models": [{
        "id": "m", "baseUrl": server.base_url(), "model": "test-model"
    }]});
    std::fs::write(home.join("models.json"), models.to_string()).unwrap();
    if let Some(agent) = agent {
        std::fs::write(home.join("agent.json"), agent.to_string()).unwrap();
    }
    let store = smallebot_infrastructure::SqliteStore::open(&home.join("smallebot.db"))
        .await
        .unwrap();
    smallebot_agent::assembly::AgentAssembly::from_home_with_env(home, &|_| None)
        .unwrap()
        .store(Arc::new(store))
        .build()
        .unwrap()
        .service
}

#[tokio::test]
async fn the_summary_is_bounded_by_summary_max_tokens_in_the_prompt_and_the_request() {
    for (agent, bound) in [
        (None, 500),
        (Some(serde_json::json!({"summaryMaxTokens": 300})), 300),
    ] {
        let home = tempfile::tempdir().unwrap();
        let server = smallebot_testkit::TestModel::start().await.unwrap();
        let service = service_of_home(home.path(), &server, agent).await;
        let c = service.create_conversation("u").await.unwrap();
        for i in 0..3 {
            server.push(ScriptedResponse::text(format!("a{i}")));
            service
                .send(c.id, &format!("turn {i}"), SendOptions::default())
                .await
                .unwrap();
        }
        server.push(ScriptedResponse::text("SUMMARY"));
        let report = service.compact(c.id, None).await.unwrap();
        assert!(report.ok, "{}", report.detail);
        let request = server.requests().last().cloned().unwrap();
        assert!(is_summary_request(&request), "{:?}", request.body);
        assert_eq!(request.body["max_tokens"], bound, "{:?}", request.body);
        let text = request.last_user_text().unwrap();
        assert!(
            text.ends_with(&format!("in under {bound} tokens.")),
            "{text}"
        );
        assert!(
            system_prompt(&request).contains("Stay under the length the request names"),
            "the shipped skill asks for the bound"
        );
        // Turns have their own bound: the model's `maxOutputTokens` (its default here).
        assert_eq!(server.requests()[0].body["max_tokens"], 4096);
    }
}
