//! The JSON API against a real server on 127.0.0.1, driving the real pipeline with the
//! scripted testkit model (the event stream is in `streams.rs`).

use crate::common;

use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_testkit::{Gate, ScriptedResponse, ToolCallSpec};

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
    ]);
    let mut stream = s.open_events(&id, None).await;
    let started = s.send(&id, json!({"text": "what time is it?"})).await;
    assert_eq!(started.status(), StatusCode::ACCEPTED);
    let turn_id = started.json::<Value>().await.unwrap()["turn_id"].clone();
    assert!(turn_id.is_string(), "{turn_id}");

    let events = stream.until_turn_ends().await;
    let kinds: Vec<&str> = events
        .iter()
        .filter_map(|f| f.data["type"].as_str())
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
    assert!(events.windows(2).all(|w| w[0].id < w[1].id), "{events:?}");
    assert!(events.iter().all(|f| f.data["seq"] == json!(f.id.unwrap())));
    assert!(
        events
            .iter()
            .all(|f| f.data["conversation_id"] == json!(id))
    );
    assert!(
        events
            .iter()
            .all(|f| f.data["turn_id"].is_null() || f.data["turn_id"] == turn_id)
    );

    let timeline: Value = s.get_json(&format!("/api/conversations/{id}")).await;
    assert_eq!(timeline["context"]["window"], 128_000);
    let used = timeline["context"]["used"].as_u64().unwrap();
    assert!(used > 0, "{timeline}");
    assert!(timeline["context"]["ratio"].as_f64().unwrap() > 0.0);
    let rows = timeline["rows"].as_array().unwrap();
    let row_kinds: Vec<&str> = rows.iter().filter_map(|r| r["kind"].as_str()).collect();
    assert_eq!(row_kinds, ["message", "message", "tool_call", "message"]);
    assert_eq!(rows[2]["status"], "ok");
    assert_eq!(rows[3]["content"], "It is **now**.");
    assert!(rows.iter().all(|r| r["summarized"] == false));

    let listed: Value = s.get_json("/api/conversations").await;
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
    // The answer stops after two pieces: only the cancel below ends the turn.
    let never = Gate::new();
    s.model.push(
        ScriptedResponse::text("a slow answer, word by word")
            .chunk_size(2)
            .pause_after_chunks(2, &never),
    );
    let mut stream = s.open_events(&id, None).await;
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
    let events = stream.until_turn_ends().await;
    assert_eq!(events.last().unwrap().data["type"], "TurnCancelled");
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

#[tokio::test]
async fn other_hosts_and_other_sites_are_refused() {
    let s = Server::start().await;
    let port = s.base.rsplit(':').next().unwrap().to_owned();
    let create = |origin: Option<String>, host: Option<String>| {
        let mut request = s.http.post(s.url("/api/conversations"));
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        if let Some(host) = host {
            request = request.header("host", host);
        }
        request.send()
    };
    // A page of another site posting to the server, and a name rebound to 127.0.0.1.
    for (origin, host) in [
        (Some("http://evil.example".to_owned()), None),
        (Some(format!("http://127.0.0.1.evil.example:{port}")), None),
        (None, Some(format!("rebound.example:{port}"))),
        (None, Some("127.0.0.1:1".to_owned())),
    ] {
        let response = create(origin.clone(), host.clone()).await.unwrap();
        assert_eq!(
            response.status(),
            StatusCode::FORBIDDEN,
            "{origin:?} {host:?}"
        );
        let body: Value = response.json().await.unwrap();
        assert!(
            body["error"].as_str().unwrap().contains("refused")
                || body["error"].as_str().unwrap().contains("does not answer"),
            "{body}"
        );
    }
    // Its own pages, by address or as localhost, are served.
    for (origin, host) in [
        (None, None),
        (Some(format!("http://127.0.0.1:{port}")), None),
        (
            Some(format!("http://localhost:{port}")),
            Some(format!("localhost:{port}")),
        ),
    ] {
        let response = create(origin.clone(), host.clone()).await.unwrap();
        assert_eq!(
            response.status(),
            StatusCode::CREATED,
            "{origin:?} {host:?}"
        );
    }
    let listed: Value = s.get_json("/api/conversations").await;
    assert_eq!(
        listed.as_array().unwrap().len(),
        3,
        "nothing refused was stored"
    );
}

#[tokio::test]
async fn an_open_end_that_left_nothing_open_is_said_to_render_as_complete() {
    let s = Server::start().await;
    let render = |text: &'static str, open: bool| {
        let url = s.url(if open {
            "/api/markdown?open=true"
        } else {
            "/api/markdown"
        });
        let request = s
            .http
            .post(url)
            .header("content-type", "text/plain; charset=utf-8")
            .body(text);
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            let same = response
                .headers()
                .get("x-same-when-complete")
                .map(|v| v.to_str().unwrap().to_owned());
            (same, response.text().await.unwrap())
        }
    };
    // (text, open: whether the rendering is that of the complete text)
    let cases = [
        ("plain words", Some("true")),
        ("a **bold** word", Some("true")),
        ("```rust\nfn open_fence() {", Some("true")),
        ("a **bo", None),
        ("`co", None),
    ];
    for (text, same) in cases {
        let (said, open_html) = render(text, true).await;
        assert_eq!(said.as_deref(), same, "{text:?}");
        let (_, complete_html) = render(text, false).await;
        assert_eq!(
            open_html == complete_html,
            same.is_some(),
            "{text:?}: {open_html} / {complete_html}"
        );
    }
}
