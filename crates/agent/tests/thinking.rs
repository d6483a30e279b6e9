//! Thinking models: reasoning as `reasoning_content`, as `reasoning`, or as a leading
//! `<think>…</think>` in the text — streamed in small pieces, all stored as reasoning
//! and never as answer text; a model with `supportsThinking` is sent
//! `reasoning_effort`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use smallebot_agent::assembly::AgentAssembly;
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::{HistoryRow, Role};
use smallebot_core::repository::HistoryRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{ScriptedResponse, TestModel};

#[tokio::test]
async fn the_three_reasoning_forms_are_stored_as_reasoning() {
    let home = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let models = serde_json::json!({"models": [{
        "id": "thinker", "baseUrl": server.base_url(), "model": "qwq",
        "supportsThinking": true, "reasoningEffort": "high"
    }]});
    std::fs::write(home.path().join("models.json"), models.to_string()).unwrap();
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let service = AgentAssembly::from_home_with_env(home.path(), &|_| None)
        .unwrap()
        .store(Arc::new(store.clone()))
        .build()
        .unwrap()
        .service;
    let forms = [
        ScriptedResponse::text("Four.").with_reasoning("two plus two"),
        ScriptedResponse::text("Four.")
            .with_reasoning("two plus two")
            .reasoning_in_field_reasoning(),
        ScriptedResponse::text("<think>two plus two</think>\n\nFour."),
    ];
    for (i, form) in forms.into_iter().enumerate() {
        server.push(form.chunk_size(3));
        let c = service.create_conversation("u").await.unwrap();
        let mut events = service.subscribe(c.id);
        let outcome = service
            .send(c.id, "2+2?", SendOptions::default())
            .await
            .unwrap();
        assert_eq!(outcome.text, "Four.", "form {i}");
        let rows = store.rows_after(c.id, 0).await.unwrap();
        let thoughts: Vec<&str> = rows
            .iter()
            .filter_map(|r| match r {
                HistoryRow::ThinkBlock(t) => Some(t.content.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(thoughts, ["two plus two"], "form {i}");
        let answers: Vec<&str> = rows
            .iter()
            .filter_map(|r| match r {
                HistoryRow::Message(m) if m.role == Role::Assistant => Some(m.content.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(answers, ["Four."], "form {i}");
        let (mut shown_text, mut shown_reasoning) = (String::new(), String::new());
        while let Some(event) = events.try_recv() {
            match event.kind {
                EventKind::TextDelta { text } => shown_text.push_str(&text),
                EventKind::ReasoningDelta { text } => shown_reasoning.push_str(&text),
                _ => {}
            }
        }
        assert_eq!(
            (shown_text.as_str(), shown_reasoning.as_str()),
            ("Four.", "two plus two"),
            "form {i}"
        );
    }
    let first = &server.requests()[0];
    assert_eq!(first.body["reasoning_effort"], "high");
    assert_eq!(first.body["model"], "qwq");
    store.close().await;
}
