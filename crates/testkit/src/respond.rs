//! Turning a [`ScriptedResponse`] into an HTTP response, with its delays and faults.

use std::collections::VecDeque;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::StreamExt;
use tokio::sync::watch;

use crate::gate::Gate;
use crate::record::RecordedRequest;
use crate::script::{Completion, Cut, ResponseKind, ScriptedResponse, error_body};
use crate::sse::{self, DONE, MALFORMED, RenderContext};

/// The model name echoed when the request has none.
const DEFAULT_MODEL: &str = "testkit-model";
/// How long a scripted cut waits so that the bytes before it reach the client.
const FLUSH_BEFORE_CUT: Duration = Duration::from_millis(20);

/// An error produced by the test kit itself (not scripted), OpenAI-shaped so clients
/// show the message.
pub(crate) fn testkit_error(status: StatusCode, message: String) -> Response {
    let body = error_body(&message, "testkit_error", None, None);
    (status, axum::Json(body)).into_response()
}

/// Sleep for `delay` unless the server shuts down first; `false` means it shut down.
async fn sleep_or_shutdown(delay: Duration, shutdown: &mut watch::Receiver<bool>) -> bool {
    if delay.is_zero() {
        return !*shutdown.borrow();
    }
    tokio::select! {
        () = tokio::time::sleep(delay) => true,
        _ = shutdown.wait_for(|stopped| *stopped) => false,
    }
}

/// Render `scripted` as the answer to `request`.
///
/// `on_sent` is called once the whole answer was handed to the connection (a streamed
/// one: after its last event); not for errors, cut streams or a shutdown.
pub(crate) async fn render(
    scripted: ScriptedResponse,
    request: &RecordedRequest,
    body_bytes: usize,
    mut shutdown: watch::Receiver<bool>,
    on_sent: OnSent,
) -> Response {
    if !sleep_or_shutdown(scripted.delay_headers, &mut shutdown).await {
        return shutting_down();
    }
    if let Some(gate) = &scripted.hold {
        tokio::select! {
            () = gate.opened() => {}
            _ = shutdown.wait_for(|stopped| *stopped) => return shutting_down(),
        }
    }
    let headers = match extra_headers(&scripted.headers) {
        Ok(headers) => headers,
        Err(message) => return testkit_error(StatusCode::INTERNAL_SERVER_ERROR, message),
    };
    let streaming = request.is_streaming();
    let completion = match &scripted.kind {
        ResponseKind::HttpError { status, body } => {
            let Ok(status) = StatusCode::from_u16(*status) else {
                let message = format!(
                    "smallebot-testkit: scripted status {status} is not a valid HTTP status"
                );
                return testkit_error(StatusCode::INTERNAL_SERVER_ERROR, message);
            };
            if !sleep_or_shutdown(scripted.delay_before, &mut shutdown).await {
                return shutting_down();
            }
            return (status, headers, axum::Json(body.clone())).into_response();
        }
        ResponseKind::Completion(completion) => completion,
        ResponseKind::Recorded { events } => {
            let mut events: VecDeque<String> = events.iter().cloned().collect();
            if let Some(Cut::Abort(n) | Cut::End(n)) = scripted.cut {
                events.truncate(n);
            }
            return event_stream(headers, stream_body(&scripted, events, shutdown, on_sent));
        }
    };
    let ctx = context(request, body_bytes, streaming);
    if streaming {
        let events = planned_events(&scripted, completion, &ctx);
        event_stream(headers, stream_body(&scripted, events, shutdown, on_sent))
    } else {
        if !sleep_or_shutdown(scripted.delay_before, &mut shutdown).await {
            return shutting_down();
        }
        let mut headers = headers;
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        let body = json_body(&scripted, completion, &ctx);
        on_sent();
        (StatusCode::OK, headers, body).into_response()
    }
}

/// An SSE response of `body`, with the scripted `headers`.
fn event_stream(mut headers: HeaderMap, body: Body) -> Response {
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    (StatusCode::OK, headers, body).into_response()
}

/// Called once an answer was sent whole.
pub(crate) type OnSent = Box<dyn FnOnce() + Send + Sync>;

fn shutting_down() -> Response {
    let message = "smallebot-testkit: the test model is shutting down".to_owned();
    testkit_error(StatusCode::SERVICE_UNAVAILABLE, message)
}

/// `body_bytes`: the length of the request body as sent, the prompt the usage counts.
fn context(request: &RecordedRequest, body_bytes: usize, streaming: bool) -> RenderContext {
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    RenderContext {
        id: format!("chatcmpl-testkit-{}", request.index),
        created,
        model: request.model().unwrap_or(DEFAULT_MODEL).to_owned(),
        include_usage: streaming && request.include_usage(),
        prompt_chars: body_bytes,
    }
}

fn extra_headers(pairs: &[(String, String)]) -> Result<HeaderMap, String> {
    let mut headers = HeaderMap::new();
    for (name, value) in pairs {
        let parsed = HeaderName::from_bytes(name.as_bytes())
            .ok()
            .zip(HeaderValue::from_str(value).ok());
        let Some((name, value)) = parsed else {
            return Err(format!(
                "smallebot-testkit: scripted header {name:?}: {value:?} is not a valid HTTP header"
            ));
        };
        headers.append(name, value);
    }
    Ok(headers)
}

/// The non-streamed body, with the malformed and cut faults applied.
fn json_body(scripted: &ScriptedResponse, completion: &Completion, ctx: &RenderContext) -> Body {
    let full = if scripted.malformed_at.is_some() {
        Bytes::from_static(b"{not json")
    } else {
        Bytes::from(sse::completion_object(completion, ctx).to_string())
    };
    let half = full.slice(..full.len() / 2);
    match scripted.cut {
        None => Body::from(full),
        Some(Cut::End(_)) => Body::from(half),
        Some(Cut::Abort(_)) => {
            let head = futures::stream::iter([Ok::<_, std::io::Error>(half)]);
            Body::from_stream(head.chain(futures::stream::once(cut())))
        }
    }
}

/// The scripted cut: a body error, on which hyper drops the connection mid-body.
///
/// hyper discards bytes it has not flushed yet when the body fails, so the cut first
/// waits a moment (returning `Pending` lets hyper flush everything sent before it).
async fn cut() -> Result<Bytes, std::io::Error> {
    tokio::time::sleep(FLUSH_BEFORE_CUT).await;
    Err(std::io::Error::other(
        "smallebot-testkit: scripted cut of the response body",
    ))
}

/// The SSE events to send, in order, with the scripted faults applied.
fn planned_events(
    scripted: &ScriptedResponse,
    completion: &Completion,
    ctx: &RenderContext,
) -> VecDeque<String> {
    let mut events = sse::stream_events(completion, ctx);
    if let Some(position) = scripted.malformed_at {
        events.insert(position.min(events.len()), MALFORMED.to_owned());
    }
    if let Some((position, body)) = &scripted.error_event_at {
        events.truncate(*position);
        events.push(format!("data: {body}\n\n"));
        return events.into();
    }
    events.push(DONE.to_owned());
    if let Some(Cut::Abort(n) | Cut::End(n)) = scripted.cut {
        events.truncate(n.min(events.len() - 1));
    }
    events.into()
}

/// State of a streamed body between two events.
struct StreamPlan {
    on_sent: Option<OnSent>,
    events: VecDeque<String>,
    next_delay: Duration,
    delay_between: Duration,
    abort_at_end: bool,
    finished: bool,
    shutdown: watch::Receiver<bool>,
    /// Events sent so far.
    sent: usize,
    /// After this many events, wait for the gate.
    pause: Option<(usize, Gate)>,
}

fn stream_body(
    scripted: &ScriptedResponse,
    events: VecDeque<String>,
    shutdown: watch::Receiver<bool>,
    on_sent: OnSent,
) -> Body {
    let plan = StreamPlan {
        on_sent: Some(on_sent),
        events,
        next_delay: scripted.delay_before,
        delay_between: scripted.delay_between,
        abort_at_end: matches!(scripted.cut, Some(Cut::Abort(_))),
        finished: false,
        shutdown,
        sent: 0,
        pause: scripted.pause.clone(),
    };
    let stream = futures::stream::unfold(plan, |mut plan| async move {
        if plan.finished {
            return None;
        }
        let sent = plan.sent;
        if let Some((_, gate)) = plan.pause.take_if(|(after, _)| *after == sent) {
            let stopped = tokio::select! {
                () = gate.opened() => false,
                _ = plan.shutdown.wait_for(|stopped| *stopped) => true,
            };
            if stopped {
                plan.finished = true;
                let stopped = std::io::Error::other("smallebot-testkit: shut down mid-stream");
                return Some((Err(stopped), plan));
            }
        }
        let Some(event) = plan.events.pop_front() else {
            plan.finished = true;
            if !plan.abort_at_end {
                if let Some(sent) = plan.on_sent.take() {
                    sent();
                }
                return None;
            }
            return Some((cut().await, plan));
        };
        let delay = std::mem::replace(&mut plan.next_delay, plan.delay_between);
        if !sleep_or_shutdown(delay, &mut plan.shutdown).await {
            plan.finished = true;
            let stopped = std::io::Error::other("smallebot-testkit: shut down mid-stream");
            return Some((Err(stopped), plan));
        }
        plan.sent += 1;
        Some((Ok(Bytes::from(event)), plan))
    });
    Body::from_stream(stream)
}
