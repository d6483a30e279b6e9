//! The wire protocol: chunk shape, deltas, tool calls, usage, non-streaming JSON.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::{Value, json};
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use support::{chat_body, delta_text, post, reassemble_tool_calls};

#[tokio::test]
async fn streamed_text_is_valid_chunks_ending_with_done() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("Hello, world!").chunk_size(3));

    let response = post(model.addr(), &chat_body(true, "hi")).await;

    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    assert!(response.complete);
    let data = response.sse_data();
    assert_eq!(data.last().map(String::as_str), Some("[DONE]"));
    let chunks = response.chunks();
    assert_eq!(
        chunks.len(),
        data.len() - 1,
        "every event but [DONE] is JSON"
    );
    assert!(
        chunks.len() >= 5,
        "13 characters in pieces of 3 plus the finish chunk"
    );
    for chunk in &chunks {
        assert_eq!(chunk["object"], "chat.completion.chunk");
        assert_eq!(chunk["model"], "gpt-test", "model is echoed");
        assert_eq!(chunk["id"], chunks[0]["id"]);
        assert!(chunk["created"].is_u64());
        assert_eq!(chunk["choices"][0]["index"], 0);
        assert!(chunk.get("usage").is_none(), "no usage unless asked");
    }
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    assert_eq!(delta_text(&chunks, "content"), "Hello, world!");
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "stop");
    assert_eq!(last["choices"][0]["delta"], json!({}));
    assert!(
        chunks[..chunks.len() - 1]
            .iter()
            .all(|c| c["choices"][0]["finish_reason"].is_null())
    );
}

#[tokio::test]
async fn usage_chunk_is_sent_only_when_asked() {
    let model = TestModel::start().await.unwrap();
    let answer = ScriptedResponse::text("Hi").usage(12, 5);
    model.push_all([answer.clone(), answer]);

    let mut asking = chat_body(true, "hi");
    asking["stream_options"] = json!({"include_usage": true});
    let with_usage = post(model.addr(), &asking).await.chunks();
    let without_usage = post(model.addr(), &chat_body(true, "hi")).await.chunks();

    let last = with_usage.last().unwrap();
    assert_eq!(last["choices"], json!([]));
    assert_eq!(
        last["usage"],
        json!({"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17})
    );
    let before = &with_usage[with_usage.len() - 2];
    assert_eq!(before["choices"][0]["finish_reason"], "stop");
    assert!(without_usage.iter().all(|c| c.get("usage").is_none()));
    assert!(
        without_usage
            .iter()
            .all(|c| c["choices"].as_array().unwrap().len() == 1)
    );
}

#[tokio::test]
async fn default_usage_is_a_sensible_estimate() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::text("twelve chars"));

    let mut asking = chat_body(true, "hi");
    asking["stream_options"] = json!({"include_usage": true});
    let chunks = post(model.addr(), &asking).await.chunks();

    let usage = &chunks.last().unwrap()["usage"];
    assert_eq!(usage["completion_tokens"], 3);
    assert!(usage["prompt_tokens"].as_u64().unwrap() > 0);
    assert_eq!(
        usage["total_tokens"].as_u64(),
        Some(usage["prompt_tokens"].as_u64().unwrap() + 3)
    );
}

#[tokio::test]
async fn reasoning_streams_before_text_and_lands_in_the_message() {
    let model = TestModel::start().await.unwrap();
    let answer = ScriptedResponse::text("42").with_reasoning("Let me think about it.");
    model.push_all([answer.clone(), answer]);

    let chunks = post(model.addr(), &chat_body(true, "q")).await.chunks();
    let whole = post(model.addr(), &chat_body(false, "q")).await.json();

    assert_eq!(
        delta_text(&chunks, "reasoning_content"),
        "Let me think about it."
    );
    assert_eq!(delta_text(&chunks, "content"), "42");
    let first_content = chunks
        .iter()
        .position(|c| c.pointer("/choices/0/delta/content").is_some())
        .unwrap();
    assert!(
        chunks[..first_content]
            .iter()
            .all(|c| c.pointer("/choices/0/delta/reasoning_content").is_some())
    );
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
    let message = &whole["choices"][0]["message"];
    assert_eq!(message["reasoning_content"], "Let me think about it.");
    assert_eq!(message["content"], "42");
}

fn two_calls() -> [ToolCallSpec; 2] {
    [
        ToolCallSpec::new(
            "call_1",
            "ReadFile",
            r#"{"path":"notes/today.md","limit":200}"#,
        ),
        ToolCallSpec::new("call_2", "GetCurrentTime", "{}"),
    ]
}

fn expected_calls() -> Vec<(String, String, String)> {
    two_calls()
        .into_iter()
        .map(|c| (c.id, c.name, c.arguments))
        .collect()
}

#[tokio::test]
async fn split_tool_call_deltas_reassemble() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::tool_calls(two_calls()).chunk_size(5));

    let chunks = post(model.addr(), &chat_body(true, "read")).await.chunks();

    assert_eq!(reassemble_tool_calls(&chunks), expected_calls());
    let call_deltas: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| c.pointer("/choices/0/delta/tool_calls/0"))
        .collect();
    assert!(call_deltas.len() > 4, "arguments arrive in several pieces");
    for delta in &call_deltas {
        if delta.get("id").is_some() {
            assert_eq!(delta["type"], "function");
            assert!(delta["function"]["name"].is_string());
        } else {
            let keys: Vec<&String> = delta.as_object().unwrap().keys().collect();
            assert_eq!(
                keys,
                ["function", "index"],
                "later deltas carry only index and arguments"
            );
            assert_eq!(delta["function"].as_object().unwrap().len(), 1);
        }
    }
    let indexes: Vec<u64> = call_deltas
        .iter()
        .map(|d| d["index"].as_u64().unwrap())
        .collect();
    assert!(
        indexes.is_sorted(),
        "not interleaved unless asked: {indexes:?}"
    );
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "tool_calls"
    );
    assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
}

#[tokio::test]
async fn interleaved_tool_call_deltas_reassemble() {
    let model = TestModel::start().await.unwrap();
    model.push(
        ScriptedResponse::tool_calls(two_calls())
            .chunk_size(2)
            .interleaved(),
    );

    let chunks = post(model.addr(), &chat_body(true, "read")).await.chunks();

    assert_eq!(reassemble_tool_calls(&chunks), expected_calls());
    let indexes: Vec<u64> = chunks
        .iter()
        .filter_map(|c| {
            c.pointer("/choices/0/delta/tool_calls/0/index")
                .and_then(Value::as_u64)
        })
        .collect();
    let after_call_1 = indexes
        .iter()
        .skip_while(|i| **i == 0)
        .skip_while(|i| **i == 1);
    assert!(
        after_call_1.clone().any(|i| *i == 0),
        "call 0 continues after call 1 began: {indexes:?}"
    );
}

#[tokio::test]
async fn first_argument_piece_can_ride_with_the_header() {
    let model = TestModel::start().await.unwrap();
    let call = ToolCallSpec::new("call_9", "Echo", r#"{"text":"hello"}"#).first_piece_in_header();
    model.push(ScriptedResponse::tool_calls([call]).chunk_size(4));

    let chunks = post(model.addr(), &chat_body(true, "x")).await.chunks();

    let header = chunks[0].pointer("/choices/0/delta/tool_calls/0").unwrap();
    assert_eq!(header["function"]["arguments"], r#"{"te"#);
    assert_eq!(
        reassemble_tool_calls(&chunks),
        [("call_9".into(), "Echo".into(), r#"{"text":"hello"}"#.into())]
    );
}

#[tokio::test]
async fn text_and_tool_calls_in_one_response() {
    let model = TestModel::start().await.unwrap();
    let answer = ScriptedResponse::text("Let me look.").with_tool_calls(two_calls());
    model.push_all([answer.clone(), answer]);

    let chunks = post(model.addr(), &chat_body(true, "x")).await.chunks();
    let whole = post(model.addr(), &chat_body(false, "x")).await.json();

    assert_eq!(delta_text(&chunks, "content"), "Let me look.");
    assert_eq!(reassemble_tool_calls(&chunks), expected_calls());
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "tool_calls"
    );
    assert_eq!(whole["choices"][0]["message"]["content"], "Let me look.");
    assert_eq!(whole["choices"][0]["finish_reason"], "tool_calls");
}

#[tokio::test]
async fn non_streaming_answer_is_a_chat_completion_object() {
    let model = TestModel::start().await.unwrap();
    model.push(ScriptedResponse::tool_calls(two_calls()).usage(30, 7));
    model.push(ScriptedResponse::text("Plain.").finish_reason("length"));

    let calls = post(model.addr(), &chat_body(false, "x")).await;
    let text = post(model.addr(), &chat_body(false, "y")).await;

    assert_eq!(calls.status, 200);
    assert_eq!(calls.header("content-type"), Some("application/json"));
    let calls = calls.json();
    assert_eq!(calls["object"], "chat.completion");
    assert_eq!(calls["model"], "gpt-test");
    assert!(calls["id"].is_string() && calls["created"].is_u64());
    let choice = &calls["choices"][0];
    assert_eq!(choice["index"], 0);
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["role"], "assistant");
    assert!(choice["message"]["content"].is_null());
    assert_eq!(
        choice["message"]["tool_calls"][0],
        json!({"id": "call_1", "type": "function",
               "function": {"name": "ReadFile", "arguments": r#"{"path":"notes/today.md","limit":200}"#}})
    );
    assert_eq!(
        choice["message"]["tool_calls"][1]["function"]["name"],
        "GetCurrentTime"
    );
    assert_eq!(
        calls["usage"],
        json!({"prompt_tokens": 30, "completion_tokens": 7, "total_tokens": 37})
    );
    let text = text.json();
    assert_eq!(text["choices"][0]["message"]["content"], "Plain.");
    assert!(text["choices"][0]["message"].get("tool_calls").is_none());
    assert_eq!(text["choices"][0]["finish_reason"], "length");
    assert!(
        text["usage"]["total_tokens"].as_u64().unwrap() > 0,
        "usage is always present"
    );
}
