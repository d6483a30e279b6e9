//! `GET /api/conversations/{id}/events`: one conversation's events, live, as
//! server-sent events.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use smallebot_application::events::{Capacity, Replay};
use smallebot_application::{Event, EventKind, EventSubscription};
use smallebot_protocol::events::{ConfirmEvent, ReloadEvent};
use tokio::sync::watch;

use super::own_conversation;
use crate::auth::{CurrentUser, UserService};
use crate::confirm::PendingConfirmation;
use crate::error::ApiError;
use crate::serve::OwnConnection;
use crate::state::WebState;

/// The least time between two deltas a stream sends (about a frame): the deltas that
/// come meanwhile wait in the stream's queue, which joins them, so a fast model's
/// thousands of small deltas reach the page as a few dozen a second instead of each
/// being an event the page must handle.
pub(crate) const DELTA_PACE: Duration = Duration::from_millis(16);

/// Where a stream is.
enum Phase {
    /// Sending events (and, with a confirmer, its questions for this conversation).
    Live(Live),
    /// The `reload` event was sent; end.
    Done,
}

/// A stream sending events.
struct Live {
    subscription: EventSubscription,
    confirmations: Option<watch::Receiver<Option<PendingConfirmation>>>,
    /// When the last event sent was a delta: when it was sent.
    delta_sent: Option<Instant>,
}

/// Streams the conversation's events: each as its protocol form
/// (`smallebot_protocol::events::Event`: the envelope's ids and the event's `type` and
/// fields) with its per-conversation sequence number as the SSE
/// `id`. A client that sends `Last-Event-ID` first receives what it missed; one that
/// does not, the running turn's events so far. When that is impossible (the events are
/// no longer kept) or the client falls too far behind, it receives one `reload` event
/// (`{"type":"Reload","reason":…}`) and the stream ends: load the conversation again
/// and open a new stream without `Last-Event-ID`. A stream that falls behind gets the
/// consecutive deltas waiting for it joined into one event (its queue joins them, see
/// [`Capacity::Bounded`]). With a confirmer, a command waiting
/// for confirmation arrives as a `confirm` event (`ConfirmationRequested` with
/// `request_id`, `command`, `timeout_secs`; `ConfirmationClosed` once it is answered,
/// timed out or dropped), without an id.
///
/// The response is marked [`OwnConnection`]: [`serve`](crate::serve) writes it on its
/// socket by itself (an idle stream holds no HTTP buffers).
pub(crate) async fn stream(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let conversation = own_conversation(&state, &user, &id).await?;
    let replay = match headers.get("last-event-id") {
        Some(value) => match value.to_str().ok().and_then(|v| v.trim().parse().ok()) {
            Some(seq) => Replay::After(seq),
            None => {
                return Err(ApiError::bad_request(
                    "Last-Event-ID must be the number of the last event received",
                ));
            }
        },
        None => Replay::RunningTurn,
    };
    let subscription = service.subscribe_with(
        conversation.id,
        replay,
        Capacity::Bounded(state.stream_queue),
    );
    let first = if subscription.missed_events() {
        Some(reload("some events since Last-Event-ID are no longer kept"))
    } else {
        None
    };
    let start = match first {
        Some(event) => futures::future::Either::Left(futures::stream::once(async move {
            Ok::<_, Infallible>(event)
        })),
        None => {
            // A question already waiting is shown at once (a page opened later).
            let confirmations = state.confirmer.as_ref().map(|c| {
                let mut watched = c.watch(conversation.id);
                if watched.borrow().is_some() {
                    watched.mark_changed();
                }
                watched
            });
            futures::future::Either::Right(futures::stream::unfold(
                Phase::Live(Live {
                    subscription,
                    confirmations,
                    delta_sent: None,
                }),
                next,
            ))
        }
    };
    // Counted as a subscriber while the stream lives (dropped when the client goes).
    let counted = state.metrics.clone().map(Subscriber::new);
    let start = futures::StreamExt::map(start, move |event| {
        let _counted = &counted;
        event
    });
    let mut response = Sse::new(start)
        .keep_alive(KeepAlive::default())
        .into_response();
    response.extensions_mut().insert(OwnConnection);
    Ok(response)
}

/// One event-stream subscriber in the metrics, from its start to its drop.
struct Subscriber(std::sync::Arc<dyn smallebot_application::ports::MetricsExport>);

impl Subscriber {
    fn new(metrics: std::sync::Arc<dyn smallebot_application::ports::MetricsExport>) -> Self {
        metrics.sse_subscribers(true);
        Self(metrics)
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        self.0.sse_subscribers(false);
    }
}

/// The stream's next SSE event.
async fn next(phase: Phase) -> Option<(Result<SseEvent, Infallible>, Phase)> {
    let Phase::Live(mut live) = phase else {
        return None;
    };
    // Right after a delta, the next event waits out the pace (deltas join meanwhile).
    if let Some(sent) = live.delta_sent.take() {
        tokio::time::sleep_until((sent + DELTA_PACE).into()).await;
    }
    let Live {
        subscription,
        confirmations,
        ..
    } = &mut live;
    let question = async {
        if let Some(watched) = confirmations.as_mut()
            && watched.changed().await.is_ok()
        {
            return Some(watched.borrow_and_update().clone());
        }
        // No confirmer (or it is gone): only events.
        std::future::pending().await
    };
    let event = tokio::select! {
        biased;
        event = subscription.recv() => event,
        Some(pending) = question => {
            return Some((Ok(confirm(pending.as_ref())), Phase::Live(live)));
        }
    };
    match event {
        Some(event) => {
            let delta = matches!(
                event.kind,
                EventKind::TextDelta { .. } | EventKind::ReasoningDelta { .. }
            );
            // Once what waited is sent, the next delta waits out the pace.
            let sent = sse(event);
            let drained = live.subscription.queued() == 0;
            live.delta_sent = (delta && drained).then(Instant::now);
            Some((Ok(sent), Phase::Live(live)))
        }
        None if subscription.lagged() => Some((
            Ok(reload("this stream fell too far behind the conversation")),
            Phase::Done,
        )),
        None => None,
    }
}

/// A `confirm` event: the command waiting for an answer, or `ConfirmationClosed` once
/// none waits.
fn confirm(pending: Option<&PendingConfirmation>) -> SseEvent {
    SseEvent::default()
        .event("confirm")
        .data(json(&confirm_event(pending)))
}

/// A `confirm` event's data: the call waiting, or none.
fn confirm_event(pending: Option<&PendingConfirmation>) -> ConfirmEvent {
    match pending {
        Some(p) => ConfirmEvent::ConfirmationRequested {
            request_id: p.request_id,
            command: p.command.clone(),
            tool: p.tool.clone(),
            is_command: p.is_command,
            rule: p.rule.clone(),
            timeout_secs: p.timeout_secs,
            unconfined: p.unconfined,
        },
        None => ConfirmEvent::ConfirmationClosed,
    }
}

/// An event as SSE, its `seq` as id and its protocol form as data.
fn sse(event: Event) -> SseEvent {
    let sent = event.into_wire();
    SseEvent::default()
        .id(sent.seq.to_string())
        .data(json(&sent))
}

/// The `reload` event: the client must reload the conversation and reconnect afresh.
fn reload(reason: &str) -> SseEvent {
    SseEvent::default()
        .event("reload")
        .data(json(&ReloadEvent::new(reason)))
}

/// A protocol value as JSON text (its types always serialize).
fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|err| {
        serde_json::json!({ "type": "Error", "error": err.to_string() }).to_string()
    })
}
