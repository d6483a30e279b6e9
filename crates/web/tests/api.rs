//! The JSON API and the event stream against a real server on 127.0.0.1, driving the
//! real pipeline with the scripted testkit model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::client::ChatEndpoint;
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use smallebot_web::{WebState, router};

struct Server {
    base: String,
    model: TestModel,
    http: reqwest::Client,
    _dir: tempfile::TempDir,
}

impl Server {
    async fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let model = TestModel::start().await.unwrap();
        let store = SqliteStore::open(&dir.path().join("web.db")).await.unwrap();
        let agent =
            AgentAssembly::new(Arc::new(store), ChatEndpoint::new(model.base_url(), "test"))
                .skill_path(dir.path().join("SKILL.md"))
                .tools(ToolRegistry::new().with(Arc::new(GetCurrentTime)))
                .build()
                .unwrap();
        let app = router(WebState::new(Arc::new(agent.service), "alice"));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            base,
            model,
            http: reqwest::Client::new(),
            _dir: dir,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn create(&self) -> String {
        let created = self
            .http
            .post(self.url("/api/conversations"))
            .send()
            .await
            .unwrap();
        assert_eq!(created.status(), StatusCode::CREATED);
        let body: Value = created.json().await.unwrap();
        body["id"].as_str().unwrap().to_owned()
    }

    async fn send(&self, id: &str, body: Value) -> reqwest::Response {
        self.http
            .post(self.url(&format!("/api/conversations/{id}/messages")))
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    /// Opens the event stream and returns the events (as JSON, with their SSE ids)
    /// up to and including the one that ends the turn.
    async fn events_until_turn_ends(
        &self,
        id: &str,
    ) -> impl std::future::Future<Output = Vec<(u64, Value)>> + use<> {
        let response = self
            .http
            .get(self.url(&format!("/api/conversations/{id}/events")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let mut bytes = response.bytes_stream();
        async move {
            let mut buffer = String::new();
            let mut events = Vec::new();
            loop {
                let chunk = tokio::time::timeout(Duration::from_secs(10), bytes.next())
                    .await
                    .expect("an event within 10 s")
                    .expect("the stream stays open")
                    .unwrap();
                buffer.push_str(std::str::from_utf8(&chunk).unwrap());
                while let Some(end) = buffer.find("\n\n") {
                    let frame: String = buffer.drain(..end + 2).collect();
                    let id = frame.lines().find_map(|l| l.strip_prefix("id: "));
                    let data = frame.lines().find_map(|l| l.strip_prefix("data: "));
                    if let (Some(id), Some(data)) = (id, data) {
                        let event: Value = serde_json::from_str(data).unwrap();
                        let ends = matches!(
                            event["type"].as_str(),
                            Some("TurnCompleted" | "TurnFailed" | "TurnCancelled")
                        );
                        events.push((id.parse().unwrap(), event));
                        if ends {
                            return events;
                        }
                    }
                }
            }
        }
    }
}

#[tokio::test]
async fn a_conversation_from_creation_to_deletion() {
    let s = Server::start().await;
    assert_eq!(
        s.http
            .get(s.url("/healthz"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
        "ok"
    );
    let id = s.create().await;
    s.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new("call_1", "GetCurrentTime", "{}")]),
        ScriptedResponse::text("It is **now**."),
        ScriptedResponse::text("Time question"),
    ]);
    let stream = s.events_until_turn_ends(&id).await;
    let started = s.send(&id, json!({"text": "what time is it?"})).await;
    assert_eq!(started.status(), StatusCode::ACCEPTED);
    let turn_id = started.json::<Value>().await.unwrap()["turn_id"].clone();
    assert!(turn_id.is_string(), "{turn_id}");

    let events = stream.await;
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|(_, e)| e["type"].as_str())
        .collect();
    for expected in [
        "TurnStarted",
        "ToolCallStarted",
        "ToolCallCompleted",
        "TextDelta",
    ] {
        assert!(kinds.contains(&expected), "{kinds:?}");
    }
    assert_eq!(kinds.last(), Some(&"TurnCompleted"));
    // One conversation's events, with increasing sequence numbers as SSE ids.
    assert!(events.windows(2).all(|w| w[0].0 < w[1].0), "{events:?}");
    assert!(
        events
            .iter()
            .all(|(_, e)| e["conversation_id"] == json!(id))
    );
    assert!(
        events
            .iter()
            .all(|(_, e)| e["turn_id"].is_null() || e["turn_id"] == turn_id)
    );

    let timeline: Value = s
        .http
        .get(s.url(&format!("/api/conversations/{id}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let rows = timeline["rows"].as_array().unwrap();
    let row_kinds: Vec<&str> = rows.iter().filter_map(|r| r["kind"].as_str()).collect();
    assert_eq!(row_kinds, ["message", "message", "tool_call", "message"]);
    assert_eq!(rows[2]["status"], "ok");
    assert_eq!(rows[3]["content"], "It is **now**.");
    assert!(rows.iter().all(|r| r["summarized"] == false));

    let listed: Value = s
        .http
        .get(s.url("/api/conversations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(listed[0]["id"], json!(id));

    let deleted = s
        .http
        .delete(s.url(&format!("/api/conversations/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), StatusCode::NO_CONTENT);
    let gone = s
        .http
        .get(s.url(&format!("/api/conversations/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    let body: Value = gone.json().await.unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("not found"),
        "{body}"
    );
}

#[tokio::test]
async fn a_second_turn_while_one_runs_is_refused_with_409_and_cancel_stops_it() {
    let s = Server::start().await;
    let id = s.create().await;
    s.model.push(
        ScriptedResponse::text("a slow answer, word by word")
            .chunk_size(2)
            .delay_between(Duration::from_millis(200)),
    );
    let stream = s.events_until_turn_ends(&id).await;
    assert_eq!(
        s.send(&id, json!({"text": "first"})).await.status(),
        StatusCode::ACCEPTED
    );
    let busy = s.send(&id, json!({"text": "second"})).await;
    assert_eq!(busy.status(), StatusCode::CONFLICT);
    let body: Value = busy.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("busy"), "{body}");
    // A refused conversation cannot be deleted either.
    let delete = s
        .http
        .delete(s.url(&format!("/api/conversations/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(delete.status(), StatusCode::CONFLICT);

    let cancelled: Value = s
        .http
        .post(s.url(&format!("/api/conversations/{id}/cancel")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(cancelled["cancelled"], true);
    let events = stream.await;
    assert_eq!(events.last().unwrap().1["type"], "TurnCancelled");
}

#[tokio::test]
async fn bad_requests_get_400_404_or_413_with_what_was_wrong() {
    let s = Server::start().await;
    let id = s.create().await;
    let malformed = s
        .http
        .post(s.url(&format!("/api/conversations/{id}/messages")))
        .header("content-type", "application/json")
        .body("{\"text\": ")
        .send()
        .await
        .unwrap();
    assert_eq!(malformed.status(), StatusCode::BAD_REQUEST);
    let body: Value = malformed.json().await.unwrap();
    assert!(
        body["error"].as_str().unwrap().contains("bad request body"),
        "{body}"
    );

    let unknown_field = s.send(&id, json!({"txt": "hi"})).await;
    assert_eq!(unknown_field.status(), StatusCode::BAD_REQUEST);
    let empty = s.send(&id, json!({"text": "   "})).await;
    assert_eq!(empty.status(), StatusCode::BAD_REQUEST);
    let body: Value = empty.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("empty"), "{body}");

    for missing in ["not-an-id", "01a202c1-bd6c-77b9-9831-d665c565df36"] {
        let response = s.send(missing, json!({"text": "hi"})).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{missing}");
    }
    let huge = "x".repeat(smallebot_web::MAX_BODY_BYTES + 1);
    let too_big = s.send(&id, json!({ "text": huge })).await;
    assert_eq!(too_big.status(), StatusCode::PAYLOAD_TOO_LARGE);
    // Nothing was stored by any of them.
    assert!(s.model.requests().is_empty());
}
