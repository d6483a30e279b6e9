//! Faults: HTTP errors, delays, cut streams, malformed chunks, an empty script.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use smallebot_testkit::{Gate, ScriptedResponse, TestModel};
use support::{chat_body, post, read_all, read_head, send};
use tokio::io::AsyncReadExt;

#[tokio::test]
async fn rate_limit_carries_retry_after_and_an_openai_error() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::rate_limited(7));

    let response = post(model.addr(), &chat_body(true, "x")).await;

    assert_eq!(response.status, 429);
    assert_eq!(response.header("retry-after"), Some("7"));
    let body = response.json();
    assert_eq!(body["error"]["code"], "rate_limit_exceeded");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Rate limit")
    );
}

#[tokio::test]
async fn server_errors_use_the_scripted_status() {
    let model = TestModel::start().await.unwrap();
    model.push_all([
        ScriptedResponse::server_error(500),
        ScriptedResponse::server_error(503),
    ]);

    let first = post(model.addr(), &chat_body(true, "x")).await;
    let second = post(model.addr(), &chat_body(false, "x")).await;

    assert_eq!((first.status, second.status), (500, 503));
    assert_eq!(first.json()["error"]["type"], "server_error");
}

#[tokio::test]
async fn context_length_exceeded_is_an_openai_400() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::context_length_exceeded());

    let response = post(model.addr(), &chat_body(true, "x")).await;

    assert_eq!(response.status, 400);
    let error = &response.json()["error"];
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("This model's maximum context length is ")
    );
    assert_eq!(error["type"], "invalid_request_error");
    assert_eq!(error["param"], "messages");
    assert_eq!(error["code"], "context_length_exceeded");
}

#[tokio::test]
async fn aborted_stream_stops_after_n_events_without_done() {
    let model = TestModel::start().await.unwrap();
    model.push(
        ScriptedResponse::text("partial answer")
            .chunk_size(2)
            .cut_after_chunks(2),
    );

    let response = post(model.addr(), &chat_body(true, "x")).await;

    assert_eq!(response.status, 200);
    assert!(!response.complete, "the chunked body never terminates");
    let data = response.sse_data();
    assert_eq!(data.len(), 2);
    assert!(!data.contains(&"[DONE]".to_owned()));
    assert_eq!(support::delta_text(&response.chunks(), "content"), "part");
}

#[tokio::test]
async fn ended_stream_closes_cleanly_without_done() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("short").end_after_chunks(100));

    let response = post(model.addr(), &chat_body(true, "x")).await;

    assert!(response.complete);
    let data = response.sse_data();
    assert!(
        !data.contains(&"[DONE]".to_owned()),
        "[DONE] is never sent: {data:?}"
    );
    assert_eq!(data.len(), response.chunks().len());
    assert_eq!(
        response.chunks().last().unwrap()["choices"][0]["finish_reason"],
        "stop"
    );
}

#[tokio::test]
async fn non_streaming_cut_leaves_truncated_json() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("whole answer").cut_after_chunks(0));

    let response = post(model.addr(), &chat_body(false, "x")).await;

    assert!(!response.complete);
    assert!(serde_json::from_str::<serde_json::Value>(&response.body).is_err());
}

#[tokio::test]
async fn malformed_chunk_is_inserted_at_its_position() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("x").malformed_chunk_at(1));

    let response = post(model.addr(), &chat_body(true, "x")).await;

    let data = response.sse_data();
    assert_eq!(data[1], "{not json");
    assert_eq!(data.last().map(String::as_str), Some("[DONE]"));
    for (position, payload) in data.iter().enumerate() {
        if position != 1 && payload != "[DONE]" {
            serde_json::from_str::<serde_json::Value>(payload).unwrap();
        }
    }
}

#[tokio::test]
async fn delays_hold_back_the_first_chunk_and_space_the_rest() {
    let model = TestModel::start().await.unwrap();
    let before = Duration::from_millis(300);
    let between = Duration::from_millis(40);
    model.push(
        ScriptedResponse::text("abcd")
            .chunk_size(1)
            .delay_before(before)
            .delay_between(between),
    );

    let started = Instant::now();
    let response = post(model.addr(), &chat_body(true, "x")).await;

    // 4 content chunks + finish + [DONE] = 6 events, 5 gaps between them.
    assert_eq!(response.sse_data().len(), 6);
    assert!(started.elapsed() >= before + between * 5);
}

#[tokio::test]
async fn a_paused_stream_sends_n_events_then_waits_for_its_gate() {
    let model = TestModel::start().await.unwrap();
    let rest = Gate::new();
    model.push(
        ScriptedResponse::text("abcd")
            .chunk_size(1)
            .pause_after_chunks(2, &rest),
    );
    let mut stream = send(
        model.addr(),
        "/v1/chat/completions",
        &chat_body(true, "x").to_string(),
    )
    .await;
    let (status, _, mut raw) =
        tokio::time::timeout(Duration::from_secs(10), read_head(&mut stream))
            .await
            .unwrap();
    assert_eq!(status, 200);
    let events = |raw: &[u8]| String::from_utf8_lossy(raw).matches("data: ").count();
    let mut buf = [0u8; 4096];
    while events(&raw) < 2 {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf))
            .await
            .expect("the first two events come at once")
            .unwrap();
        assert!(read > 0, "the stream ended early");
        raw.extend_from_slice(&buf[..read]);
    }
    let silent = tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buf)).await;
    assert!(silent.is_err(), "nothing more while the gate is closed");
    assert_eq!(events(&raw), 2);

    rest.open();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut raw))
        .await
        .expect("the rest follows once the gate opens")
        .unwrap();
    // 4 content chunks + finish + [DONE].
    assert_eq!(events(&raw), 6);
    assert!(String::from_utf8_lossy(&raw).contains("data: [DONE]"));
}

#[tokio::test]
async fn hung_stream_sends_headers_then_silence_until_shutdown() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("never").delay_before(Duration::from_secs(3600)));

    let mut stream = send(
        model.addr(),
        "/v1/chat/completions",
        &chat_body(true, "x").to_string(),
    )
    .await;
    let (status, headers, rest) =
        tokio::time::timeout(Duration::from_secs(10), read_head(&mut stream))
            .await
            .expect("headers are sent before the delayed first chunk");
    assert_eq!(status, 200);
    assert!(
        headers
            .iter()
            .any(|(n, v)| n == "content-type" && v == "text/event-stream")
    );
    assert!(rest.is_empty());
    let mut byte = [0u8; 1];
    let silent = tokio::time::timeout(Duration::from_millis(200), stream.read(&mut byte)).await;
    assert!(silent.is_err(), "no body while the delay runs");

    model.shutdown().await;
    let mut tail = Vec::new();
    let ended = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut tail)).await;
    assert!(ended.is_ok(), "shutdown ends the hung stream");
    assert!(!String::from_utf8_lossy(&tail).contains("[DONE]"));
}

#[tokio::test]
async fn delayed_headers_hold_back_the_whole_response() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::server_error(502).delay_headers(Duration::from_secs(3600)));

    let mut stream = send(
        model.addr(),
        "/v1/chat/completions",
        &chat_body(true, "x").to_string(),
    )
    .await;
    let mut byte = [0u8; 1];
    let silent = tokio::time::timeout(Duration::from_millis(200), stream.read(&mut byte)).await;
    assert!(silent.is_err(), "not even the status line is sent");
}

#[tokio::test]
async fn empty_script_answers_500_naming_the_request() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("only one"));

    let first = post(model.addr(), &chat_body(true, "one")).await;
    let second = post(model.addr(), &chat_body(true, "two")).await;

    assert_eq!(first.status, 200);
    assert_eq!(second.status, 500);
    let message = second.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.contains("smallebot-testkit: no scripted response left for request #1"),
        "{message}"
    );
    assert_eq!(
        model.requests().len(),
        2,
        "the failed request is still recorded"
    );
}

#[tokio::test]
async fn queue_comes_first_then_the_responder() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("queued"));
    model.respond_with(|req| {
        ScriptedResponse::text(format!("echo {}", req.last_user_text().unwrap_or_default()))
    });

    let texts: Vec<String> = [
        post(model.addr(), &chat_body(false, "a")).await,
        post(model.addr(), &chat_body(false, "b")).await,
        post(model.addr(), &chat_body(false, "c")).await,
    ]
    .iter()
    .map(|r| {
        r.json()["choices"][0]["message"]["content"]
            .as_str()
            .unwrap()
            .to_owned()
    })
    .collect();

    assert_eq!(texts, ["queued", "echo b", "echo c"]);
    assert_eq!(model.pending(), 0);
}

#[tokio::test]
async fn a_bad_script_or_body_fails_loudly() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("x").with_header("bad header", "v"));
    model.respond_with(|_| panic!("scripted panic"));

    let bad_header = post(model.addr(), &chat_body(false, "x")).await;
    let panicked = post(model.addr(), &chat_body(false, "x")).await;
    let mut stream = send(model.addr(), "/v1/chat/completions", "{oops").await;
    let not_json = read_all(&mut stream).await;
    let mut stream = send(model.addr(), "/v1/embeddings", "{}").await;
    let wrong_route = read_all(&mut stream).await;

    assert_eq!(bad_header.status, 500);
    assert!(bad_header.body.contains("not a valid HTTP header"));
    assert_eq!(panicked.status, 500);
    assert!(panicked.body.contains("responder panicked on request #1"));
    assert_eq!(not_json.status, 400);
    assert!(not_json.body.contains("is not JSON"));
    assert_eq!(wrong_route.status, 404);
    assert_eq!(model.requests()[2].body, json!(null));
}
