//! The client on its own against the scripted OpenAI-protocol server: what it sends,
//! what it makes of the stream, and which failures it tries again. (The same client
//! inside a whole turn — stored steps, events — is tested in `smallebot-agent`.)
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use smallebot_application::ports::{
    ChatModel, ModelDelta, ModelErrorKind, ModelMessage, ModelRequest, ModelResponse,
    RequestPurpose,
};
use smallebot_model_client::{
    ChatEndpoint, ClientSettings, NamedEndpoint, OpenAiChatModel, RetryPolicy,
};
use smallebot_testkit::{ScriptedResponse, TestModel};

/// Settings that retry at once, so the tests do not wait for backoffs.
fn quick() -> ClientSettings {
    ClientSettings {
        retry: RetryPolicy {
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(5),
            ..RetryPolicy::default()
        },
        stream_max_retries: 2,
        ..ClientSettings::default()
    }
}

fn request(text: &str) -> ModelRequest {
    ModelRequest {
        purpose: RequestPurpose::Chat,
        system: "You are terse.".to_owned(),
        messages: vec![ModelMessage::user(text)],
        tools: Arc::from(Vec::new()),
        thinking: false,
        model: None,
        max_tokens: None,
        billing: None,
    }
}

/// Calls `model` once, returning its answer and every delta it streamed.
async fn call(
    model: &OpenAiChatModel,
    request: &ModelRequest,
) -> (
    Result<ModelResponse, smallebot_application::ports::ModelError>,
    Vec<ModelDelta>,
) {
    let deltas = Mutex::new(Vec::new());
    let sink = |delta: ModelDelta| deltas.lock().unwrap().push(delta);
    let result = model.complete(request, &sink).await;
    (result, deltas.into_inner().unwrap())
}

/// The answer text of `deltas`, in order.
fn text_of(deltas: &[ModelDelta]) -> String {
    deltas
        .iter()
        .map(|d| match d {
            ModelDelta::Text(t) => t.as_str(),
            _ => "",
        })
        .collect()
}

#[tokio::test]
async fn streams_the_answer_and_its_usage_and_sends_the_conversation_as_asked() {
    let server = TestModel::start().await.unwrap();
    server.push(
        ScriptedResponse::text("It is noon.")
            .chunk_size(3)
            .usage(12, 5),
    );
    let model = OpenAiChatModel::new(ChatEndpoint::new(server.base_url(), "m1"), None, quick());

    let (answer, deltas) = call(&model, &request("What time is it?")).await;

    let answer = answer.unwrap();
    assert_eq!(answer.text, "It is noon.");
    let usage = answer.usage.unwrap();
    assert_eq!((usage.prompt_tokens, usage.completion_tokens), (12, 5));
    assert_eq!(text_of(&deltas), "It is noon.");
    assert!(deltas.len() > 1, "the text came in pieces: {deltas:?}");
    let sent = &server.requests()[0];
    assert_eq!(sent.model(), Some("m1"));
    assert!(sent.is_streaming() && sent.include_usage());
    assert_eq!(sent.messages()[0]["role"], "system");
    assert_eq!(sent.last_user_text().as_deref(), Some("What time is it?"));
}

#[tokio::test]
async fn a_leading_think_block_is_reasoning_not_answer() {
    let server = TestModel::start().await.unwrap();
    server.push(ScriptedResponse::text("<think>noon, probably</think>It is noon.").chunk_size(4));
    let model = OpenAiChatModel::new(ChatEndpoint::new(server.base_url(), "m"), None, quick());

    let answer = call(&model, &request("time?")).await.0.unwrap();

    assert_eq!(answer.reasoning, "noon, probably");
    assert_eq!(answer.text, "It is noon.");
}

#[tokio::test]
async fn a_server_error_before_the_answer_is_tried_again() {
    let server = TestModel::start().await.unwrap();
    server.push(ScriptedResponse::server_error(503));
    server.push(ScriptedResponse::text("back"));
    let model = OpenAiChatModel::new(ChatEndpoint::new(server.base_url(), "m"), None, quick());

    let answer = call(&model, &request("hi")).await.0.unwrap();

    assert_eq!(answer.text, "back");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_stream_cut_midway_is_discarded_and_the_request_sent_again() {
    let server = TestModel::start().await.unwrap();
    server.push(
        ScriptedResponse::text("half an answer")
            .chunk_size(2)
            .cut_after_chunks(3),
    );
    server.push(ScriptedResponse::text("whole answer"));
    let model = OpenAiChatModel::new(ChatEndpoint::new(server.base_url(), "m"), None, quick());

    let (answer, deltas) = call(&model, &request("hi")).await;

    assert_eq!(answer.unwrap().text, "whole answer");
    let retry = deltas
        .iter()
        .position(|d| matches!(d, ModelDelta::Retrying(_)))
        .expect("the consumer is told to discard the cut attempt");
    assert_eq!(text_of(&deltas[retry..]), "whole answer");
}

#[tokio::test]
async fn a_request_that_does_not_fit_is_not_retried() {
    let server = TestModel::start().await.unwrap();
    server.push(ScriptedResponse::context_length_exceeded());
    let model = OpenAiChatModel::new(ChatEndpoint::new(server.base_url(), "m"), None, quick());

    let error = call(&model, &request("hi")).await.0.unwrap_err();

    assert_eq!(error.kind, ModelErrorKind::ContextLengthExceeded);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_chosen_model_and_summaries_go_to_their_own_endpoints() {
    let chat = TestModel::start().await.unwrap();
    let other = TestModel::start().await.unwrap();
    let compaction = TestModel::start().await.unwrap();
    other.push(ScriptedResponse::text("from the other"));
    compaction.push(ScriptedResponse::text("a summary"));
    chat.push(ScriptedResponse::text("from the default"));
    let model = OpenAiChatModel::new(
        ChatEndpoint::new(chat.base_url(), "chat-model"),
        Some(ChatEndpoint::new(compaction.base_url(), "small-model")),
        quick(),
    )
    .with_choices(vec![NamedEndpoint {
        id: "other".to_owned(),
        endpoint: ChatEndpoint::new(other.base_url(), "other-model"),
        context_window: 8192,
    }]);

    let mut chosen = request("hi");
    chosen.model = Some("other".to_owned());
    let mut summary = request("summarize");
    summary.purpose = RequestPurpose::Summary;
    let mut unknown = request("hi");
    unknown.model = Some("gone".to_owned());

    assert_eq!(
        call(&model, &chosen).await.0.unwrap().text,
        "from the other"
    );
    assert_eq!(call(&model, &summary).await.0.unwrap().text, "a summary");
    assert_eq!(
        call(&model, &unknown).await.0.unwrap().text,
        "from the default"
    );
    assert_eq!(other.requests()[0].model(), Some("other-model"));
    assert_eq!(compaction.requests()[0].model(), Some("small-model"));
    assert_eq!(chat.requests()[0].model(), Some("chat-model"));
}
