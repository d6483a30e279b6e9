//! Where requests go: the endpoint ([`ChatEndpoint`], [`NamedEndpoint`]), the client's
//! timeouts and retries ([`ClientSettings`]), and the HTTP client each endpoint is
//! talked to with.

use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use smallebot_application::ports::ModelChoice;

use crate::retry::{RetryPolicy, RetryService};
use crate::server_probe::{ServerReport, probe};

/// The id of the model the environment configures (`OPENAI_BASE_URL`,
/// `SMALLEBOT_MODEL`) rather than a models file. It is no name a person chose: messages
/// name that model by its model name instead.
pub const ENV_MODEL_ID: &str = "env";

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
    /// Whether the model sees images (models.json `supportsImages`): only then is it
    /// sent image attachments.
    pub supports_images: bool,
    /// The most tokens one answer may have (models.json `maxOutputTokens`); `None`: no
    /// bound of its own.
    pub max_output_tokens: Option<u32>,
    /// How many requests its server answers at once, when models.json says
    /// (`parallelRequests`).
    pub parallel_requests: Option<u32>,
    /// Its context window, when models.json gives one (`contextWindow`); `None`: the
    /// one its server reports is taken.
    pub context_window: Option<u64>,
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
            supports_images: false,
            max_output_tokens: None,
            parallel_requests: None,
            context_window: None,
        }
    }

    /// The same endpoint, for a model that sees images.
    #[must_use]
    pub fn with_images(mut self) -> Self {
        self.supports_images = true;
        self
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
            supports_images: self.endpoint.supports_images,
        }
    }
}

/// Timeouts and retries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientSettings {
    /// An attempt fails when no data arrives for this long once its answer started.
    pub idle_timeout: Duration,
    /// An attempt fails when the first byte of its answer has not come after this long
    /// (waiting in the server's queue and for the prompt to be read are not stalls).
    pub first_byte_timeout: Duration,
    /// Retries before the body, and the backoff of every retry.
    pub retry: RetryPolicy,
    /// Retries of a request whose stream broke after it started.
    pub stream_max_retries: u32,
}

impl Default for ClientSettings {
    fn default() -> Self {
        Self {
            idle_timeout: Duration::from_secs(120),
            first_byte_timeout: Duration::from_secs(600),
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
    /// The HTTP client underneath, for asking the server what it serves.
    pub(crate) http: reqwest::Client,
    /// What its server reported, once asked (`None` inside: it said nothing).
    pub(crate) report: tokio::sync::OnceCell<Option<ServerReport>>,
}

impl Target {
    pub(crate) fn new(
        endpoint: ChatEndpoint,
        settings: &ClientSettings,
        http: &mut HttpClients,
    ) -> Self {
        let mut config = OpenAIConfig::new().with_api_base(endpoint.base_url.trim_end_matches('/'));
        config = config.with_api_key(endpoint.api_key.clone().unwrap_or_default());
        let http = http.for_url(&endpoint.base_url);
        // `Client::with_config` would build a default HTTP client of its own, loading
        // the system's TLS roots for every endpoint, even a plain `http://` one.
        let client = Client::build(http.clone(), config)
            .with_http_service(RetryService::new(http.clone(), settings.retry));
        Self {
            client,
            endpoint,
            http,
            report: tokio::sync::OnceCell::new(),
        }
    }
}

/// The HTTP clients of the endpoints, built once each and shared (a client keeps a
/// connection pool per host). Plain `http://` endpoints (a local model) get a client
/// without TLS roots: loading the system's certificates takes tens of milliseconds at
/// start, on the way to the first request, and plain HTTP never uses them.
#[derive(Debug, Default)]
pub(crate) struct HttpClients {
    plain: Option<reqwest::Client>,
    tls: Option<reqwest::Client>,
}

impl HttpClients {
    pub(crate) fn for_url(&mut self, base_url: &str) -> reqwest::Client {
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

/// Asks the server of `endpoint` what it serves ([`probe`]) with an HTTP client of its
/// own, for a command that asks once (`smallebot models`).
pub async fn ask_server(endpoint: &ChatEndpoint) -> Option<ServerReport> {
    let http = HttpClients::default().for_url(&endpoint.base_url);
    probe(
        &http,
        &endpoint.base_url,
        &endpoint.model,
        endpoint.api_key.as_deref(),
    )
    .await
}
