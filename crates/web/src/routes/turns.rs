//! Turns: start one with a message, cancel the running one.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use smallebot_application::{EventKind, PipelineError, SendOptions, TurnOutcome};
use smallebot_core::ids::TurnId;
use tokio::task::JoinError;

use super::own_conversation;
use crate::error::ApiError;
use crate::state::WebState;

/// The body of `POST …/messages`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SendBody {
    text: String,
}

/// The answer to a started turn.
#[derive(Serialize)]
pub(crate) struct Started {
    turn_id: TurnId,
}

/// `POST /api/conversations/{id}/messages`: starts a turn and answers as soon as it is
/// stored (`202` with its id); the turn runs on, its progress is in the events.
pub(crate) async fn send(
    State(state): State<WebState>,
    Path(id): Path<String>,
    body: Result<Json<SendBody>, JsonRejection>,
) -> Result<(StatusCode, Json<Started>), ApiError> {
    let Json(body) = body?;
    let conversation = own_conversation(&state, &id).await?;
    let conversation_id = conversation.id;
    let mut events = state.service.subscribe(conversation_id);
    let service = state.service.clone();
    let mut turn = tokio::spawn(async move {
        let outcome = service
            .send(conversation_id, &body.text, SendOptions::default())
            .await?;
        if outcome.first_turn {
            // The title is a nicety: a failure leaves the fallback title.
            if let Err(err) = service.generate_title(conversation_id).await {
                tracing::warn!(%err, "generating a title failed");
            }
        }
        Ok::<_, PipelineError>(outcome)
    });
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some(event) if matches!(event.kind, EventKind::TurnStarted) => {
                    if let Some(turn_id) = event.turn_id {
                        return Ok((StatusCode::ACCEPTED, Json(Started { turn_id })));
                    }
                }
                Some(_) => {}
                None => break,
            },
            finished = &mut turn => return started(finished),
        }
    }
    started(turn.await)
}

/// The answer once the turn's task ended before its start was seen.
fn started(
    finished: Result<Result<TurnOutcome, PipelineError>, JoinError>,
) -> Result<(StatusCode, Json<Started>), ApiError> {
    match finished {
        Ok(Ok(outcome)) => Ok((
            StatusCode::ACCEPTED,
            Json(Started {
                turn_id: outcome.turn_id,
            }),
        )),
        Ok(Err(err)) => Err(err.into()),
        Err(join) => Err(ApiError::internal(format!(
            "the turn's task failed: {join}"
        ))),
    }
}

/// Whether a running turn was told to stop.
#[derive(Serialize)]
pub(crate) struct Cancelled {
    cancelled: bool,
}

/// `POST /api/conversations/{id}/cancel`: cancels the running turn (its partial answer
/// is kept).
pub(crate) async fn cancel(
    State(state): State<WebState>,
    Path(id): Path<String>,
) -> Result<Json<Cancelled>, ApiError> {
    let conversation = own_conversation(&state, &id).await?;
    Ok(Json(Cancelled {
        cancelled: state.service.cancel(conversation.id),
    }))
}
