//! `GET /api/conversations/{id}/events`: one conversation's events, live, as
//! server-sent events.

mod pieces;

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;
use futures::StreamExt;
use futures::stream::BoxStream;
use smallebot_application::Event;
use smallebot_application::events::{Capacity, Replay};
use smallebot_protocol::events::{ConfirmEvent, ElicitEvent, ReloadEvent};
use tokio::sync::watch;

use super::own_conversation;
use crate::auth::{CurrentUser, UserService};
use crate::confirm::PendingConfirmation;
use crate::elicit::{PendingElicitation, wire_fields};
use crate::error::ApiError;
use crate::serve::OwnConnection;
use crate::state::WebState;
use pieces::EventPieces;

/// The least time between two deltas a stream sends (about a frame): the deltas that
/// come meanwhile wait in the stream's queue, which joins them, so a fast model's
/// thousands of small deltas reach the page as a few dozen a second instead of each
/// being an event the page must handle.
pub(crate) const DELTA_PACE: Duration = Duration::from_millis(16);

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
/// timed out or dropped), without an id; with an elicitor, an MCP server's form as an
/// `elicit` event (`ElicitationRequested`, then `ElicitationClosed`), likewise.
///
/// The response is marked [`OwnConnection`]: [`serve`](crate::serve) writes it on its
/// socket by itself (an idle stream holds no HTTP buffers), and its body is one small
/// state machine ([`EventPieces`]) with a keep-alive comment at each of the shared
/// ticks (every [`KEEP_ALIVE_EVERY`](crate::keep_alive::KEEP_ALIVE_EVERY)).
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
    let ticks = Arc::clone(&state.keep_alive);
    let metrics = state.metrics.clone();
    let pieces = if subscription.missed_events() {
        EventPieces::only(
            reload("some events since Last-Event-ID are no longer kept"),
            ticks,
            metrics,
        )
    } else {
        let confirmations = state
            .confirmer
            .as_ref()
            .map(|c| questions(c.watch(conversation.id), confirm));
        let elicitations = state
            .elicitor
            .as_ref()
            .map(|e| questions(e.watch(conversation.id), elicit));
        let asked = match (confirmations, elicitations) {
            (Some(c), Some(e)) => Some(futures::stream::select(c, e).boxed()),
            (one, other) => one.or(other),
        };
        EventPieces::live(subscription, asked, ticks, metrics)
    };
    let mut response = OwnConnection::response(pieces);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Ok(response)
}

/// The questions `watched` shows as SSE made by `event`, each change once (`None`
/// when none waits any more); one already waiting is shown at once (a page opened
/// later).
fn questions<Q: Clone + Send + Sync + 'static>(
    mut watched: watch::Receiver<Option<Q>>,
    event: fn(Option<&Q>) -> Bytes,
) -> BoxStream<'static, Bytes> {
    if watched.borrow().is_some() {
        watched.mark_changed();
    }
    futures::stream::unfold(watched, move |mut watched| async move {
        watched.changed().await.ok()?;
        let pending = watched.borrow_and_update().clone();
        Some((event(pending.as_ref()), watched))
    })
    .boxed()
}

/// A `confirm` event: the command waiting for an answer, or `ConfirmationClosed` once
/// none waits.
fn confirm(pending: Option<&PendingConfirmation>) -> Bytes {
    sse_text(Some("confirm"), None, &json(&confirm_event(pending)))
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

/// An `elicit` event: the form waiting for an answer, or `ElicitationClosed` once none
/// waits.
fn elicit(pending: Option<&PendingElicitation>) -> Bytes {
    let event = match pending {
        Some(p) => ElicitEvent::ElicitationRequested {
            request_id: p.request_id,
            server: p.server.clone(),
            message: p.message.clone(),
            fields: wire_fields(&p.form),
            timeout_secs: p.timeout_secs,
        },
        None => ElicitEvent::ElicitationClosed,
    };
    sse_text(Some("elicit"), None, &json(&event))
}

/// An event as SSE, its `seq` as id and its protocol form as data.
fn sse(event: Event) -> Bytes {
    let sent = event.into_wire();
    sse_text(None, Some(sent.seq), &json(&sent))
}

/// The `reload` event: the client must reload the conversation and reconnect afresh.
fn reload(reason: &str) -> Bytes {
    sse_text(Some("reload"), None, &json(&ReloadEvent::new(reason)))
}

/// One SSE event: its `event` name and `id` when given, then `data` (a line each of its
/// lines), then the empty line that ends it.
fn sse_text(event: Option<&str>, id: Option<u64>, data: &str) -> Bytes {
    let mut text = String::with_capacity(data.len() + 32);
    if let Some(event) = event {
        let _ = writeln!(text, "event: {event}");
    }
    if let Some(id) = id {
        let _ = writeln!(text, "id: {id}");
    }
    for line in data.split('\n') {
        let _ = writeln!(text, "data: {line}");
    }
    text.push('\n');
    Bytes::from(text)
}

/// A protocol value as JSON text (its types always serialize).
fn json(value: &impl serde::Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|err| {
        serde_json::json!({ "type": "Error", "error": err.to_string() }).to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_its_name_id_and_data_lines_then_an_empty_line() {
        let cases = [
            (None, Some(7), "{\"a\":1}", "id: 7\ndata: {\"a\":1}\n\n"),
            (Some("reload"), None, "{}", "event: reload\ndata: {}\n\n"),
            (
                Some("confirm"),
                None,
                "a\nb",
                "event: confirm\ndata: a\ndata: b\n\n",
            ),
        ];
        for (event, id, data, expected) in cases {
            assert_eq!(
                sse_text(event, id, data),
                Bytes::from(expected),
                "{expected:?}"
            );
        }
    }
}
