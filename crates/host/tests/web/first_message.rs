//! A conversation created with its first message: one call, and no empty conversation
//! stored when the turn cannot start.

use crate::common;

use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_testkit::{Gate, ScriptedResponse};

async fn create(s: &Server, body: Option<Value>) -> reqwest::Response {
    let mut request = s.http.post(s.url("/api/conversations"));
    if let Some(body) = body {
        request = request.json(&body);
    }
    request.send().await.unwrap()
}

async fn stored(s: &Server) -> usize {
    s.get_json("/api/conversations")
        .await
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn the_first_message_creates_the_conversation_and_starts_its_turn() {
    let s = Server::start().await;
    // The answer is held until the stream is open, so the turn is still running then.
    let answer_held = Gate::new();
    s.model
        .push(ScriptedResponse::text("Hello back").hold_until(&answer_held));
    let created = create(&s, Some(json!({"message": "hello there"}))).await;
    assert_eq!(created.status(), StatusCode::CREATED);
    let body: Value = created.json().await.unwrap();
    let id = body["id"].as_str().unwrap().to_owned();
    assert!(body["turn_id"].is_string(), "{body}");
    assert_eq!(body["title"], "hello there", "the fallback title: {body}");
    // The stream opened afterwards starts with the running turn's events.
    let mut events = s.open_events(&id, None).await;
    answer_held.open();
    let frames = events.until_turn_ends().await;
    assert_eq!(frames.last().unwrap().data["type"], "TurnCompleted");
    let timeline = s.get_json(&format!("/api/conversations/{id}")).await;
    let texts: Vec<_> = timeline["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["content"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(texts, ["hello there", "Hello back"]);
    assert_eq!(
        timeline["rows"][0]["turn_id"].as_str(),
        body["turn_id"].as_str()
    );
}

#[tokio::test]
async fn the_bodyless_form_still_creates_an_empty_conversation() {
    let s = Server::start().await;
    for body in [None, Some(json!({}))] {
        let created = create(&s, body.clone()).await;
        assert_eq!(created.status(), StatusCode::CREATED, "{body:?}");
        let body: Value = created.json().await.unwrap();
        assert_eq!(body["title"], "New conversation");
        assert!(body.get("turn_id").is_none(), "{body}");
    }
    assert_eq!(stored(&s).await, 2);
}

#[tokio::test]
async fn a_first_turn_that_cannot_start_stores_nothing() {
    let mut web = None;
    let s = Server::start_with(|state| {
        web = Some(state.clone());
        state
    })
    .await;
    for (body, status) in [
        (json!({"message": "  "}), StatusCode::BAD_REQUEST),
        (
            json!({"message": "hi", "model": "nope"}),
            StatusCode::BAD_REQUEST,
        ),
        (json!({"model": "nope"}), StatusCode::BAD_REQUEST),
        (
            json!({"message": "hi", "extra": 1}),
            StatusCode::BAD_REQUEST,
        ),
    ] {
        let refused = create(&s, Some(body.clone())).await;
        assert_eq!(refused.status(), status, "{body}");
    }
    web.unwrap().stop_taking_turns();
    let closing = create(&s, Some(json!({"message": "hi"}))).await;
    assert_eq!(closing.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(stored(&s).await, 0);
}
