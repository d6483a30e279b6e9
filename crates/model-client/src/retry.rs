//! The retry policy under async-openai: exponential backoff with jitter on 429, 5xx and
//! connection errors, honouring `Retry-After`, at most [`RetryPolicy::max_attempts`].
//!
//! It retries only before a response body is read. A stream that breaks after it
//! started is retried one level up, per attempt (`attempt.rs`), where the consumer is
//! told to discard what the failed attempt streamed. A retry here is announced too
//! (a [`RetryNotice`] on the channel [`announcing_retries`] gives the task making the
//! request), so a person waiting for the first byte sees why and for how long.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use async_openai::error::OpenAIError;
use async_openai::middleware::{HttpRequestFactory, ReqwestService};
use rand::Rng;
use reqwest::Response;
use smallebot_application::ports::RetryNotice;
use tokio::sync::mpsc;
use tower::{Service, ServiceExt};

/// When and how long to wait between attempts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all (the first one included).
    pub max_attempts: u32,
    /// Delay before the second attempt; doubled each time.
    pub base_delay: Duration,
    /// Longest computed backoff.
    pub max_delay: Duration,
    /// Longest `Retry-After` honoured (longer waits fail instead of hanging the turn).
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(20),
            max_retry_after: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// The backoff before attempt `attempt + 1` (attempt counts from 1): base × 2^(n-1),
    /// capped, with ±25 % jitter so clients that failed together do not retry together.
    #[must_use]
    pub fn backoff(&self, attempt: u32) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(attempt.saturating_sub(1)))
            .min(self.max_delay);
        let jitter = rand::rng().random_range(0.75..1.25);
        exp.mul_f64(jitter)
    }
}

tokio::task_local! {
    /// Where the retries of a request made in this task are announced (set by
    /// [`announcing_retries`] around the wait for a response).
    static RETRY_NOTICES: mpsc::UnboundedSender<RetryNotice>;
}

/// Runs `request` (a future that makes a request through a [`RetryService`]) with its
/// retries before the response — 429, 5xx, connection errors — announced on `notices`.
pub(crate) async fn announcing_retries<F: Future>(
    notices: mpsc::UnboundedSender<RetryNotice>,
    request: F,
) -> F::Output {
    RETRY_NOTICES.scope(notices, request).await
}

/// What went wrong, in a few words, for a retry's notice.
fn failure_reason(result: &Result<Response, OpenAIError>) -> String {
    match result {
        Ok(response) if response.status().as_u16() == 429 => "rate limited (429)".to_owned(),
        Ok(response) => format!("server error {}", response.status().as_u16()),
        Err(OpenAIError::Reqwest(err)) if err.is_timeout() => "no response in time".to_owned(),
        Err(_) => "cannot connect".to_owned(),
    }
}

/// Whether a response deserves another attempt, and the server's requested wait.
fn retryable(result: &Result<Response, OpenAIError>) -> (bool, Option<Duration>) {
    match result {
        Ok(response) => {
            let status = response.status();
            let retry = status.as_u16() == 429 || status.is_server_error();
            let after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(Duration::from_secs_f64);
            (retry, after)
        }
        Err(OpenAIError::Reqwest(err)) => (err.is_connect() || err.is_timeout(), None),
        Err(_) => (false, None),
    }
}

/// A 5xx response read to judge whether it is worth another attempt.
enum Hopeless {
    /// Its error says the request does not fit the server's context (llama.cpp answers
    /// "Context size has been exceeded." with 500): the same request fails again.
    Yes(Response),
    /// Any other server error: retried.
    No(Response),
    /// Its body could not be read (the connection broke): retried as such.
    Unread(OpenAIError),
}

/// Reads a 5xx response's (small) body, judges it, and gives the response back whole.
async fn hopeless_server_error(response: Response) -> Hopeless {
    let (status, version, headers) = (
        response.status(),
        response.version(),
        response.headers().clone(),
    );
    let body = match response.bytes().await {
        Ok(body) => body,
        Err(error) => return Hopeless::Unread(OpenAIError::Reqwest(error)),
    };
    let hopeless = crate::server_error::ServerError::read_text(&String::from_utf8_lossy(&body))
        .is_some_and(|error| !error.retryable());
    let mut rebuilt = http::Response::new(body);
    *rebuilt.status_mut() = status;
    *rebuilt.version_mut() = version;
    *rebuilt.headers_mut() = headers;
    let response = Response::from(rebuilt);
    if hopeless {
        Hopeless::Yes(response)
    } else {
        Hopeless::No(response)
    }
}

/// A tower service: reqwest underneath, this retry policy on top.
#[derive(Debug, Clone)]
pub struct RetryService {
    inner: ReqwestService,
    policy: RetryPolicy,
}

impl RetryService {
    /// Wraps a reqwest client.
    #[must_use]
    pub fn new(client: reqwest::Client, policy: RetryPolicy) -> Self {
        Self {
            inner: ReqwestService::new(client),
            policy,
        }
    }
}

type ResponseFuture = Pin<Box<dyn Future<Output = Result<Response, OpenAIError>> + Send>>;

impl Service<HttpRequestFactory> for RetryService {
    type Response = Response;
    type Error = OpenAIError;
    type Future = ResponseFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: HttpRequestFactory) -> Self::Future {
        let inner = self.inner.clone();
        let policy = self.policy;
        Box::pin(async move {
            let mut attempt = 1;
            loop {
                let result = inner.clone().oneshot(request.clone()).await;
                let (retry, retry_after) = retryable(&result);
                if !retry || attempt >= policy.max_attempts {
                    return result;
                }
                let result = match result {
                    Ok(response) if response.status().is_server_error() => {
                        match hopeless_server_error(response).await {
                            // No retry can pass: the server's answer as it came.
                            Hopeless::Yes(response) => return Ok(response),
                            Hopeless::No(response) => Ok(response),
                            Hopeless::Unread(error) => Err(error),
                        }
                    }
                    other => other,
                };
                let delay = match retry_after {
                    Some(after) if after > policy.max_retry_after => return result,
                    Some(after) => after,
                    None => policy.backoff(attempt),
                };
                // Info, not warn: the person sees the retry already (the Retrying
                // event's line in the chat and `run`); an operator's `serve` logs info.
                tracing::info!(attempt, ?delay, "model request failed; retrying");
                // Announced where someone listens (a turn's request), before the wait.
                let _ = RETRY_NOTICES.try_with(|notices| {
                    let delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
                    let notice = RetryNotice::new(
                        attempt + 1,
                        policy.max_attempts,
                        failure_reason(&result),
                        delay_ms,
                    );
                    notices.send(notice)
                });
                tokio::time::sleep(delay).await;
                attempt += 1;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_with_bounded_jitter_and_a_cap() {
        let policy = RetryPolicy {
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(500),
            ..RetryPolicy::default()
        };
        for (attempt, nominal) in [(1, 100u64), (2, 200), (3, 400), (4, 500), (10, 500)] {
            for _ in 0..20 {
                let d = policy.backoff(attempt).as_millis() as u64;
                assert!(
                    d >= nominal * 3 / 4 && d <= nominal * 5 / 4,
                    "attempt {attempt}: {d}"
                );
            }
        }
    }
}
