//! `OpenAiChatModel`: the application's `ChatModel` on an OpenAI-compatible endpoint.

use async_trait::async_trait;
use std::sync::Arc;
use tracing::Instrument;

use smallebot_application::ports::{
    ChatModel, DeltaSink, ModelChoice, ModelDelta, ModelError, ModelRequest, ModelResponse,
    RequestPurpose, RetryNotice, ServerCheck,
};

use crate::attempt::stream_once;
use crate::endpoint::{
    ChatEndpoint, ClientSettings, ENV_MODEL_ID, HttpClients, NamedEndpoint, Target,
};
use crate::server_probe::probe;
use crate::server_windows::ServerWindows;
use crate::span;

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
    /// Windows servers reported, shared with the history builder.
    windows: Arc<ServerWindows>,
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
            windows: Arc::default(),
        }
    }

    /// The same client telling `windows` the context windows servers report for models
    /// whose models.json gives none (the history builder counts against them).
    #[must_use]
    pub fn with_server_windows(mut self, windows: Arc<ServerWindows>) -> Self {
        self.windows = windows;
        self
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
        self.chosen(request.model.as_deref())
    }

    /// The target of the model `model` names: a choice, else the chat model.
    fn chosen(&self, model: Option<&str>) -> &Target {
        model
            .and_then(|id| self.alternatives.iter().find(|(known, _)| known == id))
            .map_or(&self.chat, |(_, target)| target)
    }

    /// The attempts of one request: a stream cut after it started is sent again.
    async fn attempts(
        &self,
        target: &Target,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ModelError> {
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
}

#[async_trait]
impl ChatModel for OpenAiChatModel {
    /// Streams one call. A stream that breaks after the response started (cut,
    /// malformed chunk, idle past the timeout, ended without a finish reason) fails
    /// that attempt only: the consumer is told to discard what it streamed
    /// ([`ModelDelta::Retrying`]) and the whole request is sent again after a backoff,
    /// up to `stream_max_retries` times. Errors before the body (429, 5xx, connection)
    /// are retried underneath by the [`RetryPolicy`](crate::RetryPolicy); errors no
    /// retry can fix are not.
    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ModelError> {
        let target = self.target(request);
        let span = span::request_span(&target.endpoint, request);
        let outcome = self
            .attempts(target, request, on_delta)
            .instrument(span.clone())
            .await;
        span::record(&span, &outcome);
        outcome
    }

    fn choices(&self) -> &[ModelChoice] {
        &self.choices
    }

    fn supports_images(&self, model: Option<&str>) -> bool {
        self.chosen(model).endpoint.supports_images
    }

    /// models.json's `parallelRequests`, else what the server reported (llama.cpp's
    /// slots).
    fn serves_one_at_a_time(&self, model: Option<&str>) -> bool {
        let target = self.chosen(model);
        let reported = || {
            target
                .report
                .get()
                .and_then(Option::as_ref)
                .and_then(|r| r.parallel)
        };
        target.endpoint.parallel_requests.or_else(reported) == Some(1)
    }

    async fn check_server(&self, model: Option<&str>) -> Option<ServerCheck> {
        let target = self.chosen(model);
        let report = target
            .report
            .get_or_init(|| {
                let e = &target.endpoint;
                probe(&target.http, &e.base_url, &e.model, e.api_key.as_deref())
            })
            .await
            .as_ref()?;
        let warning = match target.endpoint.context_window {
            Some(configured) => report.window_warning(&self.model_name(model), configured),
            None => {
                if let Some(window) = report.context {
                    self.windows.learn(model, window);
                }
                None
            }
        };
        Some(ServerCheck {
            report: report.describe(),
            warning,
        })
    }

    fn max_output_tokens(&self, model: Option<&str>) -> Option<u32> {
        self.chosen(model).endpoint.max_output_tokens
    }

    fn model_name(&self, model: Option<&str>) -> String {
        let choices = &self.choices;
        model
            .and_then(|id| choices.iter().find(|c| c.id == id))
            .or_else(|| choices.first())
            .map_or_else(
                || self.chat.endpoint.model.clone(),
                // The environment's model is known by the name it was given there.
                |c| match c.id.as_str() {
                    ENV_MODEL_ID => c.model.clone(),
                    id => id.to_owned(),
                },
            )
    }
}
