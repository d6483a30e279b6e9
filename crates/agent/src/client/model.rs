//! `OpenAiChatModel`: the application's `ChatModel` on an OpenAI-compatible endpoint.

use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_trait::async_trait;
use smallebot_application::ports::{
    ChatModel, DeltaSink, ModelChoice, ModelDelta, ModelError, ModelRequest, ModelResponse,
    RequestPurpose, RetryNotice,
};

use super::attempt::stream_once;
use super::retry::{RetryPolicy, RetryService};

/// Where requests go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatEndpoint {
    /// Base URL including `/v1` (e.g. `http://localhost:11434/v1`).
    pub base_url: String,
    /// Bearer key, if the endpoint needs one.
    pub api_key: Option<String>,
    /// Model name sent in each request.
    pub model: String,
    /// The environment variable the key came from (named in "check your key" errors).
    pub api_key_env: Option<String>,
    /// `reasoning_effort` sent with every request, for models that reason when asked.
    pub reasoning_effort: Option<String>,
}

impl ChatEndpoint {
    /// `model` at `base_url`, without an API key.
    #[must_use]
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            api_key: None,
            model: model.into(),
            api_key_env: None,
            reasoning_effort: None,
        }
    }

    /// The same endpoint with a bearer key.
    #[must_use]
    pub fn with_api_key(mut self, api_key: impl Into<String>) -> Self {
        self.api_key = Some(api_key.into());
        self
    }
}

/// A model a conversation may choose: its id in the model list, where it is, and its
/// context window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedEndpoint {
    /// The id conversations store (an `id` of models.json).
    pub id: String,
    /// Where requests for it go.
    pub endpoint: ChatEndpoint,
    /// Its context window in tokens.
    pub context_window: u64,
}

impl NamedEndpoint {
    /// What the application sees of it.
    #[must_use]
    pub fn choice(&self) -> ModelChoice {
        ModelChoice {
            id: self.id.clone(),
            model: self.endpoint.model.clone(),
            context_window: self.context_window,
        }
    }
}

/// Timeouts and retries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientSettings {
    /// An attempt fails when no data arrives for this long (waiting for the response
    /// included).
    pub idle_timeout: Duration,
    /// Retries before the body, and the backoff of every retry.
    pub retry: RetryPolicy,
    /// Retries of a request whose stream broke after it started.
    pub stream_max_retries: u32,
}

impl Default for ClientSettings {
    fn default() -> Self {
        Self {
            idle_timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
            stream_max_retries: 5,
        }
    }
}

/// One endpoint and the client that talks to it.
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) client: Client<OpenAIConfig>,
    pub(crate) endpoint: ChatEndpoint,
}

impl Target {
    fn new(endpoint: ChatEndpoint, settings: &ClientSettings, http: &mut HttpClients) -> Self {
        let mut config = OpenAIConfig::new().with_api_base(endpoint.base_url.trim_end_matches('/'));
        config = config.with_api_key(endpoint.api_key.clone().unwrap_or_default());
        let http = http.for_url(&endpoint.base_url);
        let client =
            Client::with_config(config).with_http_service(RetryService::new(http, settings.retry));
        Self { client, endpoint }
    }
}

/// The HTTP clients of the endpoints, built once each and shared (a client keeps a
/// connection pool per host). Plain `http://` endpoints (a local model) get a client
/// without TLS roots: loading the system's certificates takes tens of milliseconds at
/// start, on the way to the first request, and plain HTTP never uses them.
#[derive(Debug, Default)]
struct HttpClients {
    plain: Option<reqwest::Client>,
    tls: Option<reqwest::Client>,
}

impl HttpClients {
    fn for_url(&mut self, base_url: &str) -> reqwest::Client {
        let plain = base_url
            .get(..7)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("http://"));
        let slot = if plain {
            &mut self.plain
        } else {
            &mut self.tls
        };
        slot.get_or_insert_with(|| {
            let builder = reqwest::Client::builder().connect_timeout(Duration::from_secs(30));
            let builder = if plain {
                builder.tls_certs_only(Vec::new())
            } else {
                builder
            };
            builder.build().unwrap_or_default()
        })
        .clone()
    }
}

/// Streams chat completions from an OpenAI-compatible endpoint; summaries may go to a
/// separate compaction model.
#[derive(Debug)]
pub struct OpenAiChatModel {
    chat: Target,
    compaction: Option<Target>,
    /// The models conversations may choose (the default first) …
    choices: Vec<ModelChoice>,
    /// … and the targets of those that are not the chat endpoint.
    alternatives: Vec<(String, Target)>,
    settings: ClientSettings,
    http: HttpClients,
}

impl OpenAiChatModel {
    /// A client for `chat`, and for summaries `compaction` (or the chat model).
    #[must_use]
    pub fn new(
        chat: ChatEndpoint,
        compaction: Option<ChatEndpoint>,
        settings: ClientSettings,
    ) -> Self {
        let mut http = HttpClients::default();
        let compaction = compaction
            .filter(|c| *c != chat)
            .map(|c| Target::new(c, &settings, &mut http));
        Self {
            chat: Target::new(chat, &settings, &mut http),
            compaction,
            choices: Vec::new(),
            alternatives: Vec::new(),
            settings,
            http,
        }
    }

    /// The same client offering `choices` to conversations; a request naming one of
    /// them ([`ModelRequest::model`]) goes to its endpoint, any other to the chat model.
    #[must_use]
    pub fn with_choices(mut self, choices: Vec<NamedEndpoint>) -> Self {
        self.choices = choices.iter().map(NamedEndpoint::choice).collect();
        self.alternatives = choices
            .into_iter()
            .filter(|c| c.endpoint != self.chat.endpoint)
            .map(|c| {
                let target = Target::new(c.endpoint, &self.settings, &mut self.http);
                (c.id, target)
            })
            .collect();
        self
    }

    /// Summaries go to the compaction model when there is one; everything else to the
    /// conversation's chosen model, else the chat model.
    fn target(&self, request: &ModelRequest) -> &Target {
        if let (RequestPurpose::Summary, Some(compaction)) = (request.purpose, &self.compaction) {
            return compaction;
        }
        request
            .model
            .as_deref()
            .and_then(|id| self.alternatives.iter().find(|(known, _)| known == id))
            .map_or(&self.chat, |(_, target)| target)
    }
}

#[async_trait]
impl ChatModel for OpenAiChatModel {
    /// Streams one call. A stream that breaks after the response started (cut,
    /// malformed chunk, idle past the timeout, ended without a finish reason) fails
    /// that attempt only: the consumer is told to discard what it streamed
    /// ([`ModelDelta::Retrying`]) and the whole request is sent again after a backoff,
    /// up to `stream_max_retries` times. Errors before the body (429, 5xx, connection)
    /// are retried underneath by the [`RetryPolicy`]; errors no retry can fix are not.
    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ModelError> {
        let target = self.target(request);
        let max = self.settings.stream_max_retries.saturating_add(1);
        let mut attempt = 1;
        loop {
            let failure = match stream_once(target, &self.settings, request, on_delta).await {
                Ok(response) => return Ok(response),
                Err(failure) => failure,
            };
            if !failure.retryable {
                return Err(failure.error);
            }
            if attempt >= max {
                return Err(ModelError::new(
                    failure.error.kind,
                    format!(
                        "{} — gave up after {attempt} attempt(s) (streamMaxRetries in agent.json)",
                        failure.error.message
                    ),
                ));
            }
            let delay = self.settings.retry.backoff(attempt);
            attempt += 1;
            let delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
            on_delta(ModelDelta::Retrying(RetryNotice::new(
                attempt,
                max,
                failure.reason,
                delay_ms,
            )));
            // Dropping this future (cancel) ends the wait at once.
            tokio::time::sleep(delay).await;
        }
    }

    fn choices(&self) -> &[ModelChoice] {
        &self.choices
    }
}
