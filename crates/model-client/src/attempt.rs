//! One attempt of a streamed model call, and whether its failure is worth another.

use futures::StreamExt;
use smallebot_application::ports::{
    DeltaSink, ModelDelta, ModelError, ModelErrorKind, ModelRequest, ModelResponse,
};
use tokio::sync::mpsc;

use crate::accumulate::StreamAccumulator;
use crate::body::RequestBody;
use crate::endpoint::{ClientSettings, Target};
use crate::errors::map_error;
use crate::retry::announcing_retries;
use crate::server_error::ServerError;
use crate::wire::Chunk;

/// Why an attempt failed, and whether sending the request again can help.
pub(crate) struct AttemptFailure {
    /// The error, for people.
    pub(crate) error: ModelError,
    /// Whether another attempt may succeed.
    pub(crate) retryable: bool,
    /// The fault in a few words (shown in the `Retrying` event).
    pub(crate) reason: &'static str,
}

impl AttemptFailure {
    fn retry(error: ModelError, reason: &'static str) -> Self {
        Self {
            error,
            retryable: true,
            reason,
        }
    }

    /// A failure before the body: the retry layer underneath already retried what
    /// deserved it; only a timeout waiting for the response is worth a new attempt.
    fn before_body(error: ModelError) -> Self {
        Self {
            retryable: false,
            reason: "request failed",
            error,
        }
    }
}

/// Sends `request` once and streams the answer into `on_delta`. The response is whole
/// only when the stream ended with a finish reason.
pub(crate) async fn stream_once(
    target: &Target,
    settings: &ClientSettings,
    request: &ModelRequest,
    on_delta: DeltaSink<'_>,
) -> Result<ModelResponse, AttemptFailure> {
    let sent = std::time::Instant::now();
    let base = target.endpoint.base_url.as_str();
    let attempts = settings.retry.max_attempts;
    let idle = settings.idle_timeout;
    let stalled = || {
        AttemptFailure::retry(
            ModelError::new(
                ModelErrorKind::Timeout,
                format!(
                    "{base} sent nothing for {}s (stream idle timeout, streamIdleTimeoutSeconds \
                     in agent.json)",
                    idle.as_secs()
                ),
            ),
            "stream stalled",
        )
    };
    // Until the answer's first byte, waiting is not a stall: the request may be queued
    // behind another on a server that answers one at a time, or its prompt being read.
    let first_byte = settings.first_byte_timeout;
    let no_first_byte = || {
        AttemptFailure::retry(
            ModelError::new(
                ModelErrorKind::Timeout,
                format!(
                    "{base} sent no answer within {}s (time to first byte, \
                     firstByteTimeoutSeconds in agent.json: the server may be busy with \
                     other requests or reading a long prompt)",
                    first_byte.as_secs()
                ),
            ),
            "no answer in time",
        )
    };
    let first_byte_due = tokio::time::Instant::now() + first_byte;
    let body = RequestBody {
        model: &target.endpoint.model,
        request,
        reasoning_effort: target.endpoint.reasoning_effort.as_deref(),
    };
    let chat = target.client.chat();
    // Retries before the response (the layer underneath) are announced as they come.
    let (notices, mut announced) = mpsc::unbounded_channel();
    let started = tokio::time::timeout_at(
        first_byte_due,
        announcing_retries(notices, chat.create_stream_byot::<_, Chunk>(body)),
    );
    tokio::pin!(started);
    let opened = loop {
        tokio::select! {
            opened = &mut started => break opened,
            Some(notice) = announced.recv() => on_delta(ModelDelta::Retrying(notice)),
        }
    };
    let mut stream = match opened {
        Err(_) => return Err(no_first_byte()),
        Ok(Err(err)) => {
            return Err(AttemptFailure::before_body(map_error(
                err,
                &target.endpoint,
                attempts,
            )));
        }
        Ok(Ok(stream)) => stream,
    };
    let mut accumulator = StreamAccumulator::default();
    let mut started = false;
    loop {
        let next = if started {
            tokio::time::timeout(idle, stream.next()).await
        } else {
            tokio::time::timeout_at(first_byte_due, stream.next()).await
        };
        match next {
            Err(_) if !started => return Err(no_first_byte()),
            Err(_) => return Err(stalled()),
            Ok(None) => break,
            Ok(Some(Err(err))) => {
                return Err(mid_stream(map_error(err, &target.endpoint, attempts)));
            }
            Ok(Some(Ok(chunk))) => {
                if !started {
                    crate::span::first_token(sent);
                }
                started = true;
                if let Some(error) = chunk.error.as_ref().and_then(ServerError::of_value) {
                    return stream_error(&error, accumulator, base, on_delta);
                }
                for delta in accumulator.push(&chunk) {
                    on_delta(delta);
                }
            }
        }
    }
    if !accumulator.finished() {
        return Err(AttemptFailure::retry(
            ModelError::new(
                ModelErrorKind::Protocol,
                format!(
                    "the response stream from {base} ended before the model finished its answer"
                ),
            ),
            "stream ended early",
        ));
    }
    for delta in accumulator.flush() {
        on_delta(delta);
    }
    Ok(accumulator.into_response())
}

/// The server ended the stream with an error object. When its context filled up after
/// some of the answer came, the answer is kept as far as it came, marked cut (another
/// attempt would meet the same limit). Otherwise a failure in the server's words,
/// retried unless no retry can pass (the request too long, or refused).
fn stream_error(
    error: &ServerError,
    mut accumulator: StreamAccumulator,
    base: &str,
    on_delta: DeltaSink<'_>,
) -> Result<ModelResponse, AttemptFailure> {
    for delta in accumulator.flush() {
        on_delta(delta);
    }
    if error.kind() == ModelErrorKind::ContextLengthExceeded && accumulator.answered() {
        return Ok(accumulator.into_context_full(error.message.clone()));
    }
    Err(AttemptFailure {
        error: error.to_model_error(base, "ended its answer with an error"),
        retryable: error.retryable(),
        reason: "server error",
    })
}

/// A failure after the response started: retried unless no retry can fix it (the
/// request is too long, or refused).
fn mid_stream(error: ModelError) -> AttemptFailure {
    let (retryable, reason) = match error.kind {
        ModelErrorKind::ContextLengthExceeded | ModelErrorKind::Rejected => (false, "refused"),
        ModelErrorKind::Protocol => (true, "malformed chunk"),
        ModelErrorKind::Timeout => (true, "stream stalled"),
        ModelErrorKind::Server | ModelErrorKind::RateLimited => (true, "provider error"),
        _ => (true, "stream cut"),
    };
    AttemptFailure {
        error,
        retryable,
        reason,
    }
}
