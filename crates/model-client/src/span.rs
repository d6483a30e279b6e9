//! The span of one model request, named by OpenTelemetry's GenAI conventions (`chat
//! MODEL`, a client span with `gen_ai.*` attributes): what a trace viewer shows for it.
//! Spans cost next to nothing when no layer wants them; the host exports them over OTLP
//! when asked.

use smallebot_application::ports::{
    ModelError, ModelErrorKind, ModelRequest, ModelResponse, RequestPurpose,
};
use tracing::field::Empty;

use crate::endpoint::ChatEndpoint;

/// A span for sending `request` to `endpoint`; its outcome is added by [`record`].
pub(crate) fn request_span(endpoint: &ChatEndpoint, request: &ModelRequest) -> tracing::Span {
    let url = reqwest::Url::parse(&endpoint.base_url).ok();
    let purpose = match request.purpose {
        RequestPurpose::Chat => "chat",
        RequestPurpose::Title => "title",
        RequestPurpose::Summary => "summary",
        RequestPurpose::Sampling => "sampling",
        _ => "other",
    };
    tracing::info_span!(
        "chat",
        otel.name = %format_args!("chat {}", endpoint.model),
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = "openai",
        gen_ai.request.model = %endpoint.model,
        gen_ai.request.max_tokens = request.max_tokens,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        error.type = Empty,
        server.address = url.as_ref().and_then(|u| u.host_str()),
        server.port = url.as_ref().and_then(reqwest::Url::port_or_known_default),
        smallebot.request.purpose = purpose,
        smallebot.time_to_first_token_seconds = Empty,
    )
}

/// Adds what `outcome` says (tokens, why the answer ended, or the kind of failure) to
/// `span`.
pub(crate) fn record(span: &tracing::Span, outcome: &Result<ModelResponse, ModelError>) {
    match outcome {
        Ok(response) => {
            let finish = if response.cut.is_some() {
                "length"
            } else if response.tool_calls.is_empty() {
                "stop"
            } else {
                "tool_calls"
            };
            span.record("gen_ai.response.finish_reasons", finish);
            if let Some(usage) = &response.usage {
                span.record("gen_ai.usage.input_tokens", usage.prompt_tokens);
                span.record("gen_ai.usage.output_tokens", usage.completion_tokens);
                if let Some(cached) = usage.cached_tokens {
                    span.record("gen_ai.usage.cache_read.input_tokens", cached);
                }
            }
        }
        Err(error) => {
            span.record("otel.status_code", "error");
            span.record("error.type", error_type(error.kind));
        }
    }
}

/// The `error.type` word of a failure.
fn error_type(kind: ModelErrorKind) -> &'static str {
    match kind {
        ModelErrorKind::ContextLengthExceeded => "context_length_exceeded",
        ModelErrorKind::RateLimited => "rate_limited",
        ModelErrorKind::Server => "server_error",
        ModelErrorKind::Rejected => "rejected",
        ModelErrorKind::Network => "network",
        ModelErrorKind::Timeout => "timeout",
        ModelErrorKind::Protocol => "protocol",
        _ => "_OTHER",
    }
}

/// Notes on the current request's span how long after `sent` its answer began.
pub(crate) fn first_token(sent: std::time::Instant) {
    tracing::Span::current().record(
        "smallebot.time_to_first_token_seconds",
        sent.elapsed().as_secs_f64(),
    );
}
