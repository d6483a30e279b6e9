//! `OpenAiChatModel`: the application's `ChatModel` on an OpenAI-compatible endpoint.

use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::Value;
use smallebot_application::ports::{
    ChatModel, DeltaSink, ModelError, ModelErrorKind, ModelRequest, ModelResponse, RequestPurpose,
};

use super::accumulate::StreamAccumulator;
use super::errors::map_error;
use super::retry::{RetryPolicy, RetryService};
use super::wire::{Chunk, request_json};

/// Where requests go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatEndpoint {
    /// Base URL including `/v1` (e.g. `http://localhost:11434/v1`).
    pub base_url: String,
    /// Bearer key, if the endpoint needs one.
    pub api_key: Option<String>,
    /// Model name sent in each request.
    pub model: String,
}

impl ChatEndpoint {
    /// `model` at `base_url`, without an API key.
    #[must_use]
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
        }
    }

    /// The same endpoint with a bearer key.
    #[must_use]
    pub fn with_api_key(mut self, api_key: impl Into<String>) -> Self {
        self.api_key = Some(api_key.into());
        self
    }
}

/// Timeouts and retries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientSettings {
    /// Fail when no data arrives for this long (waiting for the response included).
    pub idle_timeout: Duration,
    /// When to retry.
    pub retry: RetryPolicy,
}

impl Default for ClientSettings {
    fn default() -> Self {
        Self {
            idle_timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
        }
    }
}

#[derive(Debug)]
struct Target {
    client: Client<OpenAIConfig>,
    endpoint: ChatEndpoint,
}

impl Target {
    fn new(endpoint: ChatEndpoint, settings: &ClientSettings) -> Self {
        let mut config = OpenAIConfig::new().with_api_base(endpoint.base_url.trim_end_matches('/'));
        config = config.with_api_key(endpoint.api_key.clone().unwrap_or_default());
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .build()
            .unwrap_or_default();
        let client =
            Client::with_config(config).with_http_service(RetryService::new(http, settings.retry));
        Self { client, endpoint }
    }
}

/// Streams chat completions from an OpenAI-compatible endpoint; summaries may go to a
/// separate compaction model.
#[derive(Debug)]
pub struct OpenAiChatModel {
    chat: Target,
    compaction: Option<Target>,
    settings: ClientSettings,
}

impl OpenAiChatModel {
    /// A client for `chat`, and for summaries `compaction` (or the chat model).
    #[must_use]
    pub fn new(
        chat: ChatEndpoint,
        compaction: Option<ChatEndpoint>,
        settings: ClientSettings,
    ) -> Self {
        let compaction = compaction
            .filter(|c| *c != chat)
            .map(|c| Target::new(c, &settings));
        Self {
            chat: Target::new(chat, &settings),
            compaction,
            settings,
        }
    }

    fn target(&self, purpose: RequestPurpose) -> &Target {
        match (purpose, &self.compaction) {
            (RequestPurpose::Summary, Some(compaction)) => compaction,
            _ => &self.chat,
        }
    }
}

#[async_trait]
impl ChatModel for OpenAiChatModel {
    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ModelError> {
        let target = self.target(request.purpose);
        let base = target.endpoint.base_url.as_str();
        let attempts = self.settings.retry.max_attempts;
        let idle = self.settings.idle_timeout;
        let timeout_error = || {
            ModelError::new(
                ModelErrorKind::Timeout,
                format!(
                    "{base} sent nothing for {}s (stream idle timeout, streamIdleTimeoutSeconds \
                     in agent.json)",
                    idle.as_secs()
                ),
            )
        };
        let body = request_json(&target.endpoint.model, request);
        let chat = target.client.chat();
        let started = chat.create_stream_byot::<Value, Chunk>(body);
        let mut stream = match tokio::time::timeout(idle, started).await {
            Err(_) => return Err(timeout_error()),
            Ok(Err(err)) => return Err(map_error(err, base, attempts)),
            Ok(Ok(stream)) => stream,
        };
        let mut accumulator = StreamAccumulator::default();
        loop {
            match tokio::time::timeout(idle, stream.next()).await {
                Err(_) => return Err(timeout_error()),
                Ok(None) => break,
                Ok(Some(Err(err))) => return Err(map_error(err, base, attempts)),
                Ok(Some(Ok(chunk))) => {
                    for delta in accumulator.push(&chunk) {
                        on_delta(delta);
                    }
                }
            }
        }
        if !accumulator.finished() {
            return Err(ModelError::new(
                ModelErrorKind::Protocol,
                format!(
                    "the response stream from {base} ended before the model finished its answer"
                ),
            ));
        }
        Ok(accumulator.into_response())
    }
}
