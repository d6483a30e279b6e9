//! The event stream against a real server on 127.0.0.1: resuming after
//! `Last-Event-ID`, the running turn replayed to a page opened mid-turn, a client that
//! stops reading, one reading late (every delta once, in order), and a command waiting for its confirmation on the stream.

use crate::common;

use std::time::Duration;

use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_testkit::{Gate, ScriptedResponse, ToolCallSpec};

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

/// A server whose streams queue `queue` events and `bytes` bytes of text, with two
/// streams open on a conversation whose answer of twenty thousand one-character deltas
/// (returned) was just asked for.
async fn long_answer_sent(
    queue: usize,
    bytes: usize,
) -> (Server, String, common::SseReader, common::SseReader) {
    let s = Server::start_with(|state| state.stream_queue(queue).stream_queue_bytes(bytes)).await;
    let id = s.create().await;
    let answer: String = "abcdefghij".repeat(2_000);
    s.model
        .push(ScriptedResponse::text(answer.clone()).chunk_size(1));
    let first = s.open_events(&id, None).await;
    let second = s.open_events(&id, None).await;
    assert_eq!(
        s.send(&id, json!({"text": "a long one"})).await.status(),
        StatusCode::ACCEPTED
    );
    (s, answer, first, second)
}

#[tokio::test]
async fn a_client_that_stops_reading_never_stalls_the_turn_and_is_told_to_reload() {
    // Streams that may keep 256 KB of text waiting; an answer of 4 MB, far more than
    // that and than the socket buffers hold.
    let s = Server::start_with(|state| state.stream_queue(16).stream_queue_bytes(256 << 10)).await;
    let id = s.create().await;
    let answer = "abcdefghij".repeat(400_000);
    s.model
        .push(ScriptedResponse::text(answer.clone()).chunk_size(32 << 10));
    let mut stalled = s.open_events(&id, None).await;
    let started = s.send(&id, json!({"text": "a long one"})).await;
    assert_eq!(started.status(), StatusCode::ACCEPTED);
    // The turn ends, its answer stored, though the stream reads nothing.
    let mut stored = Value::Null;
    for _ in 0..600 {
        stored = s.get_json(&format!("/api/conversations/{id}")).await;
        if stored["busy"] == json!(false) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(stored["busy"], json!(false), "the turn never ended");
    let last = stored["rows"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|r| r["role"] == "assistant")
        .unwrap();
    assert_eq!(last["content"], json!(answer));
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
async fn a_client_reading_late_gets_every_delta_once_in_order() {
    // Twenty thousand one-character deltas at full speed, read only once the turn ended,
    // with room for far fewer events: the waiting deltas join.
    let (_s, answer, mut late, mut reader) = long_answer_sent(16, 1 << 20).await;
    reader.until_turn_ends().await;
    let frames = late.until_turn_ends().await;
    assert!(frames.iter().all(|f| f.name.is_none()), "no reload");
    let deltas: Vec<_> = frames
        .iter()
        .filter(|f| f.data["type"] == "TextDelta")
        .collect();
    let text: String = deltas
        .iter()
        .map(|f| f.data["text"].as_str().unwrap())
        .collect();
    // Joined or not (the queue holds what the socket buffers do not), every delta's
    // text arrives once, in order; what waited came joined.
    assert_eq!(text, answer);
    assert!(deltas.len() < answer.len(), "{} deltas", deltas.len());
    // Ids still grow, each the SSE id of the last delta joined in.
    assert!(frames.windows(2).all(|w| w[0].id < w[1].id));
    assert!(frames.iter().all(|f| f.data["seq"] == json!(f.id.unwrap())));
}

#[tokio::test]
async fn a_page_opened_in_the_middle_of_a_long_answer_gets_all_of_it() {
    let s = Server::start().await;
    let id = s.create().await;
    // Ten thousand deltas (far more than the events kept for replay), then a pause.
    let rest_of_answer = Gate::new();
    let answer: String = (0..10_001).map(|i| format!("{} ", i % 10)).collect();
    s.model.push(
        ScriptedResponse::text(answer.clone())
            .chunk_size(2)
            .pause_after_chunks(10_000, &rest_of_answer),
    );
    let mut first = s.open_events(&id, None).await;
    let started = s.send(&id, json!({"text": "a long one"})).await;
    assert_eq!(started.status(), StatusCode::ACCEPTED);
    let mut so_far = String::new();
    while so_far.len() < 20_000 {
        let frame = first.next().await.unwrap();
        if let Some(text) = frame.data["text"].as_str() {
            so_far.push_str(text);
        }
    }
    // Opened now: the turn's events so far, the answer's text whole, then the rest.
    let mut page = s.open_events(&id, None).await;
    rest_of_answer.open();
    let frames = page.until_turn_ends().await;
    assert_eq!(frames[0].data["type"], "TurnStarted");
    let text: String = frames
        .iter()
        .filter(|f| f.data["type"] == "TextDelta")
        .map(|f| f.data["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, answer);
}

#[tokio::test]
async fn a_fast_models_deltas_reach_a_reader_keeping_up_joined_about_once_a_frame() {
    // Four hundred one-character deltas a millisecond apart, read as they come (each
    // would go alone: the reader takes every one before the next).
    let s = Server::start().await;
    let id = s.create().await;
    let answer = "abcdefghij".repeat(40);
    s.model.push(
        ScriptedResponse::text(answer.clone())
            .chunk_size(1)
            .delay_between(Duration::from_millis(1)),
    );
    let mut reader = s.open_events(&id, None).await;
    let started = s.send(&id, json!({"text": "a paced one"})).await;
    assert_eq!(started.status(), StatusCode::ACCEPTED);
    let frames = reader.until_turn_ends().await;
    let deltas: Vec<&str> = frames
        .iter()
        .filter(|f| f.data["type"] == "TextDelta")
        .map(|f| f.data["text"].as_str().unwrap())
        .collect();
    assert_eq!(deltas.concat(), answer);
    // Each delta sent waits out the pace (16 ms) before the next: far fewer events than
    // the model's deltas, however fast the reader.
    assert!(deltas.len() < 150, "{} deltas sent", deltas.len());
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
