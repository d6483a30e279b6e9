//! The JSON API and the event stream against a real server on 127.0.0.1, driving the
//! real pipeline with the scripted testkit model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

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
async fn streams_resume_after_last_event_id_and_replay_the_running_turn() {
    let s = Server::start().await;
    let id = s.create().await;
    // The answer pauses mid-stream until both late streams are open.
    let rest_of_answer = Gate::new();
    s.model.push(
        ScriptedResponse::text("one two three four five six seven eight")
            .chunk_size(4)
            .delay_between(Duration::from_millis(60))
            .pause_after_chunks(4, &rest_of_answer),
    );
    let mut first = s.open_events(&id, None).await;
    let mut second = s.open_events(&id, None).await;
    assert_eq!(
        s.send(&id, json!({"text": "count"})).await.status(),
        StatusCode::ACCEPTED
    );
    // Read three events, then drop the connection as a flaky network would.
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(first.next().await.unwrap());
    }
    drop(first);
    let last = seen.last().unwrap().id.unwrap();
    // A page opened now, mid-turn, starts with the turn's events so far.
    let mut page = s.open_events(&id, None).await;
    let replayed = page.next().await.unwrap();
    assert_eq!(replayed.data["type"], "TurnStarted");
    // Reconnecting with Last-Event-ID continues exactly after it.
    let mut resumed = s.open_events(&id, Some(last)).await;
    rest_of_answer.open();
    let rest = resumed.until_turn_ends().await;
    assert_eq!(rest[0].id, Some(last + 1));
    let mut ids: Vec<u64> = seen.iter().chain(&rest).map(|f| f.id.unwrap()).collect();
    let all = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), all, "no event twice");
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "no gap: {ids:?}");
    // Another tab saw the same stream.
    let other: Vec<u64> = second
        .until_turn_ends()
        .await
        .iter()
        .map(|f| f.id.unwrap())
        .collect();
    assert_eq!(other, ids);
    let text: String = seen
        .iter()
        .chain(&rest)
        .filter(|f| f.data["type"] == "TextDelta")
        .map(|f| f.data["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "one two three four five six seven eight");

    // An id the server no longer keeps (here: from before a restart) gets `reload`.
    let mut stale = s.open_events(&id, Some(1_000_000)).await;
    let frame = stale.next().await.unwrap();
    assert_eq!(frame.name.as_deref(), Some("reload"));
    assert_eq!(frame.data["type"], "Reload");
    assert!(stale.next().await.is_none(), "the stream ends after reload");
    let bad = s
        .http
        .get(s.url(&format!("/api/conversations/{id}/events")))
        .header("last-event-id", "yesterday")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn a_client_that_stops_reading_never_stalls_the_turn_and_is_told_to_reload() {
    let s = Server::start_with(|state| state.stream_queue(16)).await;
    let id = s.create().await;
    // Twenty thousand one-character deltas: far more than socket buffers hold.
    let answer: String = "abcdefghij".repeat(2_000);
    s.model
        .push(ScriptedResponse::text(answer.clone()).chunk_size(1));
    let mut stalled = s.open_events(&id, None).await;
    let mut reader = s.open_events(&id, None).await;
    assert_eq!(
        s.send(&id, json!({"text": "a long one"})).await.status(),
        StatusCode::ACCEPTED
    );
    let frames = reader.until_turn_ends().await;
    assert_eq!(frames.last().unwrap().data["text"], json!(answer));
    // The stalled client, reading at last, finds the end of what was buffered for it:
    // a `reload` event, then the end of the stream.
    let mut last = None;
    while let Some(frame) = stalled.next().await {
        last = Some(frame);
    }
    let last = last.unwrap();
    assert_eq!(last.name.as_deref(), Some("reload"), "{last:?}");
    assert!(
        last.data["reason"].as_str().unwrap().contains("behind"),
        "{last:?}"
    );
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
async fn a_command_waits_for_its_confirmation_on_the_stream() {
    let (s, _workspace) = Server::with_confirmed_shell(Duration::from_secs(20)).await;
    let id = s.create().await;
    let shell = |call: &str, command: &str| {
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            call,
            "ExecuteCommand",
            json!({ "command": command }).to_string(),
        )])
    };
    s.model.push_all([
        shell("c1", "echo approved-run"),
        shell("c2", "echo denied-run"),
        ScriptedResponse::text("One ran, one was denied."),
    ]);
    let mut stream = s.open_events(&id, None).await;
    assert_eq!(
        s.send(&id, json!({"text": "run two commands"}))
            .await
            .status(),
        StatusCode::ACCEPTED
    );
    let mut answers = [true, false].into_iter();
    let mut results = Vec::new();
    while let Some(frame) = stream.next().await {
        match (frame.name.as_deref(), frame.data["type"].as_str()) {
            (Some("confirm"), Some("ConfirmationRequested")) => {
                assert!(frame.id.is_none(), "confirmations carry no event id");
                let request_id = frame.data["request_id"].as_u64().unwrap();
                let approve = answers.next().unwrap();
                let url = s.url(&format!("/api/conversations/{id}/confirmation"));
                let answered = s
                    .http
                    .post(&url)
                    .json(&json!({ "request_id": request_id, "approve": approve }))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(answered.status(), StatusCode::NO_CONTENT);
                // An answer counts once.
                let again = s
                    .http
                    .post(&url)
                    .json(&json!({ "request_id": request_id, "approve": true }))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(again.status(), StatusCode::NOT_FOUND);
            }
            (_, Some("ToolCallCompleted")) => results.push((
                frame.data["status"].as_str().unwrap().to_owned(),
                frame.data["result"].as_str().unwrap().to_owned(),
            )),
            (_, Some("TurnCompleted")) => break,
            _ => {}
        }
    }
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(results[0].0, "ok");
    assert!(results[0].1.contains("approved-run"), "{results:?}");
    assert_eq!(results[1].0, "denied");
    assert!(!results[1].1.contains("denied-run\n"), "{results:?}");
}
