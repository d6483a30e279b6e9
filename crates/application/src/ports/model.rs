//! The model port: a provider-neutral chat request and one streamed call.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use smallebot_core::entities::{AnswerCut, UsageAccount};

use super::tools::ToolSchema;

/// What a request is for (the client may pick another model for summaries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RequestPurpose {
    /// A step of a conversation turn.
    Chat,
    /// A conversation title.
    Title,
    /// A compression summary.
    Summary,
    /// A completion an MCP server asked for during a tool call (sampling), billed to
    /// the call's turn and recorded as one of its requests.
    Sampling,
}

/// A tool call as the model requested it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelToolCall {
    /// The model's id for the call.
    pub call_id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as JSON text (exactly as streamed; may be invalid JSON).
    pub arguments: String,
}

/// One message of a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
// Not `#[non_exhaustive]`: every model client must handle every message kind, so a
// new kind is meant to break their `match` rather than be skipped by a wildcard.
pub enum ModelMessage {
    /// The person.
    User {
        /// Text.
        content: String,
        /// What the message's attachments became, after the text (empty for most
        /// messages: then the message is sent as plain text).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        parts: Vec<ModelPart>,
    },
    /// The model, possibly with tool calls.
    Assistant {
        /// Text (may be empty when only tools were called).
        content: String,
        /// Tool calls made in this step.
        tool_calls: Vec<ModelToolCall>,
    },
    /// A tool result, answering the call with the same id.
    Tool {
        /// The call this answers.
        call_id: String,
        /// The result as sent (already truncated).
        content: String,
    },
}

/// A part of a user message after its text: what an attachment became.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ModelPart {
    /// Text: an inlined text file with its header, or the line naming a file saved in
    /// the workspace.
    Text {
        /// The text.
        text: String,
    },
    /// An image, for a model that sees images.
    Image {
        /// A `data:` URL of the image's content (`data:image/png;base64,…`).
        data_url: String,
    },
}

impl ModelMessage {
    /// A user message of text only.
    #[must_use]
    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
            parts: Vec::new(),
        }
    }
}

/// A chat request, provider neutral.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    /// What it is for.
    pub purpose: RequestPurpose,
    /// The system prompt.
    pub system: String,
    /// The conversation, in order.
    pub messages: Vec<ModelMessage>,
    /// Tools the model may call (shared with the registry's snapshot: a request does
    /// not copy every schema).
    pub tools: std::sync::Arc<[ToolSchema]>,
    /// Whether reasoning was requested for this turn.
    pub thinking: bool,
    /// The id of the model (one of [`ChatModel::choices`]) the conversation runs on;
    /// `None`, or an id the client does not know: its default model.
    #[serde(default)]
    pub model: Option<String>,
    /// The most tokens the answer may have (`max_tokens`); `None`: the provider's limit.
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Whom the request is billed to, with its prompt's estimated size: such a request
    /// is checked against the budgets and recorded by a metering model
    /// ([`crate::metering::MeteredModel`]); `None`: neither.
    #[serde(skip)]
    pub billing: Option<RequestBilling>,
}

/// Whom a request is billed to, and what its prompt is estimated to count (for the
/// budgets' projected cost, before the provider reports the real count).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestBilling {
    /// The user, conversation, turn and step billed.
    pub account: UsageAccount,
    /// The prompt's estimated tokens.
    pub prompt_tokens: u64,
}

/// Token usage the provider reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ModelUsage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Prompt tokens the server did not compute again but took from its cache
    /// (`prompt_tokens_details.cached_tokens`; llama.cpp's `timings.cache_n`), when it
    /// says.
    #[serde(default)]
    pub cached_tokens: Option<u64>,
    /// Completion tokens spent reasoning (`completion_tokens_details.reasoning_tokens`),
    /// when the provider says.
    #[serde(default)]
    pub reasoning_tokens: Option<u64>,
}

/// What one model call produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelResponse {
    /// Answer text.
    pub text: String,
    /// Reasoning text, if the provider streamed any.
    pub reasoning: String,
    /// Tool calls, in the order the model listed them.
    pub tool_calls: Vec<ModelToolCall>,
    /// Reported usage.
    pub usage: Option<ModelUsage>,
    /// Set when a limit stopped the answer (`finish_reason: "length"`, or the server's
    /// context filled up after the answer started): what came is kept, marked cut.
    pub cut: Option<AnswerCut>,
    /// What the server said about the cut, in its words (e.g. llama.cpp's "Context
    /// size has been exceeded"), when it said anything.
    pub cut_detail: Option<String>,
}

/// What a model's server said about itself when first asked
/// ([`ChatModel::check_server`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerCheck {
    /// What it reported, in a few words (`llama.cpp: 4096 tokens of context per slot,
    /// 1 slot: one request at a time`).
    pub report: String,
    /// Something the person should know: models.json's `contextWindow` is larger than
    /// what the server gives a request.
    pub warning: Option<String>,
}

/// A piece of a streaming response.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelDelta {
    /// Answer text.
    Text(String),
    /// Reasoning text.
    Reasoning(String),
    /// The attempt streaming so far failed and the request is sent again: everything
    /// streamed since the call began (or since the last `Retrying`) is void.
    Retrying(RetryNotice),
}

/// Why and when a model call is tried again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RetryNotice {
    /// The attempt about to start (2 for the first retry).
    pub attempt: u32,
    /// The most attempts this call may make.
    pub max: u32,
    /// What went wrong, briefly (`stream cut`, `server error 503`, …).
    pub reason: String,
    /// How long until the next attempt, in milliseconds.
    pub delay_ms: u64,
}

impl RetryNotice {
    /// A notice for `attempt` of `max`, after `reason`, in `delay_ms`.
    #[must_use]
    pub fn new(attempt: u32, max: u32, reason: impl Into<String>, delay_ms: u64) -> Self {
        Self {
            attempt,
            max,
            reason: reason.into(),
            delay_ms,
        }
    }
}

/// Receives streamed pieces as they arrive.
pub type DeltaSink<'a> = &'a (dyn Fn(ModelDelta) + Send + Sync);

/// What kind of failure a model call had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ModelErrorKind {
    /// The request does not fit the model's context window.
    ContextLengthExceeded,
    /// Rate limited after every retry.
    RateLimited,
    /// The provider failed (5xx) after every retry.
    Server,
    /// The provider refused the request (4xx other than the above).
    Rejected,
    /// The connection failed or was cut.
    Network,
    /// No data arrived within the idle timeout.
    Timeout,
    /// The response did not follow the protocol (malformed chunk, stream ended early).
    Protocol,
    /// Not sent: it could have passed a budget (the message starts with
    /// [`smallebot_core::rules::budget::BUDGET_STOP`]).
    BudgetReached,
}

/// A failed model call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ModelError {
    /// What kind of failure.
    pub kind: ModelErrorKind,
    /// A message for people: what failed and what to do.
    pub message: String,
}

impl ModelError {
    /// Builds an error.
    pub fn new(kind: ModelErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
        }
    }
}

/// One model call, streamed. Retries, timeouts and protocol details are the
/// implementation's business; cancellation is by dropping the future.
#[async_trait]
pub trait ChatModel: Send + Sync {
    /// Sends `request`, calling `on_delta` for each streamed piece, and returns the
    /// whole response.
    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ModelError>;

    /// The models a conversation may choose from, the default first; empty when the
    /// client offers only its one model.
    fn choices(&self) -> &[ModelChoice] {
        &[]
    }

    /// Whether the model `model` names (one of [`Self::choices`]; `None` or an id not
    /// among them: the default model) sees images. No by default.
    fn supports_images(&self, model: Option<&str>) -> bool {
        let _ = model;
        false
    }

    /// Whether the server of the model `model` names answers one request at a time
    /// (models.json `parallelRequests: 1`, or what the server reported): a side request
    /// (a title) sent beside a turn's would make one of them wait for the other, so it
    /// waits until the turn's requests are done. No by default.
    fn serves_one_at_a_time(&self, model: Option<&str>) -> bool {
        let _ = model;
        false
    }

    /// Asks the server of the model `model` names what it serves (its context per
    /// request, how many requests at once), the first time; later calls give the first
    /// answer at once. What it says may change [`Self::serves_one_at_a_time`] and, when
    /// models.json gives no `contextWindow`, the window the estimate uses. `None`: the
    /// server said nothing (a hosted API), or nothing is asked.
    async fn check_server(&self, model: Option<&str>) -> Option<ServerCheck> {
        let _ = model;
        None
    }

    /// The most tokens an answer of the model `model` names may have (models.json
    /// `maxOutputTokens`); `None`: no bound of its own (a turn's request is still never
    /// allowed more than what is left of the window).
    fn max_output_tokens(&self, model: Option<&str>) -> Option<u32> {
        let _ = model;
        None
    }

    /// The name people know the model `model` names by, for messages: its id among
    /// [`Self::choices`], else the default model's name.
    fn model_name(&self, model: Option<&str>) -> String {
        let choices = self.choices();
        model
            .and_then(|id| choices.iter().find(|c| c.id == id))
            .or_else(|| choices.first())
            .map_or_else(|| "the chat model".to_owned(), |c| c.id.clone())
    }
}

/// A model a conversation may run on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoice {
    /// Its id in the host's model list (what [`ModelRequest::model`] names).
    pub id: String,
    /// The model name sent to the endpoint.
    pub model: String,
    /// Its context window in tokens.
    pub context_window: u64,
    /// Whether it sees images (models.json `supportsImages`).
    #[serde(default)]
    pub supports_images: bool,
}
