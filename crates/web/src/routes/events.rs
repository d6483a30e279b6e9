//! `GET /api/conversations/{id}/events`: one conversation's events, live, as
//! server-sent events.

use std::convert::Infallible;

use axum::extract::{Path, State};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use futures::Stream;

use super::own_conversation;
use crate::error::ApiError;
use crate::state::WebState;

/// Streams the conversation's events from now on: each as JSON (the envelope's ids
/// and the event's `type` and fields), with its per-conversation sequence number as
/// the SSE `id` and its `type` as the SSE event name.
pub(crate) async fn stream(
    State(state): State<WebState>,
    Path(id): Path<String>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let conversation = own_conversation(&state, &id).await?;
    let subscription = state.service.subscribe(conversation.id);
    let events = futures::stream::unfold(subscription, |mut subscription| async move {
        let event = subscription.recv().await?;
        let data = serde_json::to_string(&event).unwrap_or_else(|err| {
            serde_json::json!({ "type": "Error", "error": err.to_string() }).to_string()
        });
        let sse = SseEvent::default().id(event.seq.to_string()).data(data);
        Some((Ok(sse), subscription))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::default()))
}
