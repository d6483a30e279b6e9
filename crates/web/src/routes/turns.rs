//! Turns: start one with a message, edit a user message, regenerate an answer, cancel
//! the running turn, compact now, answer a command confirmation.

use std::future::Future;
use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use smallebot_application::pipeline::{CompressionReport, NEW_CONVERSATION_TITLE};
use smallebot_application::{
    ConversationService, EventKind, PipelineError, SendOptions, TurnOutcome,
};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use tokio::task::JoinError;

use super::own_conversation;
use crate::auth::{CurrentUser, UserService};
use crate::error::ApiError;
use crate::state::WebState;

/// The body of `POST …/messages` and of an edit.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TextBody {
    text: String,
}

/// The answer to a started turn.
#[derive(Serialize)]
pub(crate) struct Started {
    turn_id: TurnId,
}

type StartedResponse = Result<(StatusCode, Json<Started>), ApiError>;

/// `POST /api/conversations/{id}/messages`: starts a turn and answers as soon as it is
/// stored (`202` with its id); the turn runs on, its progress is in the events. Beside
/// a new conversation's first turn the model is asked for a title.
pub(crate) async fn send(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
    body: Result<Json<TextBody>, JsonRejection>,
) -> StartedResponse {
    let Json(body) = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let untitled = conversation.title == NEW_CONVERSATION_TITLE;
    let started = start(&state, &service, conversation.id, move |service, id| async move {
        service.send(id, &body.text, SendOptions::default()).await
    })
    .await?;
    if untitled {
        // The first message is stored: the title is asked for beside the turn.
        let id = conversation.id;
        tokio::spawn(async move {
            if let Err(err) = service.generate_title(id).await {
                // The title is a nicety: a failure leaves the fallback title.
                tracing::warn!(%err, "generating a title failed");
            }
        });
    }
    Ok(started)
}

/// `POST /api/conversations/{id}/messages/{message_id}/edit`: replaces a user message
/// (its turn's output and every later turn are discarded, the old text stays stored
/// marked replaced) and runs a new turn with the new text; `202` with its id.
pub(crate) async fn edit(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path((id, message_id)): Path<(String, String)>,
    body: Result<Json<TextBody>, JsonRejection>,
) -> StartedResponse {
    let Json(body) = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let message_id: MessageId = message_id
        .parse()
        .map_err(|_| ApiError::not_found("message", &message_id))?;
    start(
        &state,
        &service,
        conversation.id,
        move |service, id| async move {
            service
                .edit_message(id, message_id, &body.text, SendOptions::default())
                .await
        },
    )
    .await
}

/// `POST /api/conversations/{id}/turns/{turn_id}/regenerate`: discards the turn's
/// answer (and every later turn) and has the model answer its user message again;
/// `202` with the turn's id.
pub(crate) async fn regenerate(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path((id, turn_id)): Path<(String, String)>,
) -> StartedResponse {
    let conversation = own_conversation(&state, &user, &id).await?;
    let turn_id: TurnId = turn_id
        .parse()
        .map_err(|_| ApiError::not_found("turn", &turn_id))?;
    start(
        &state,
        &service,
        conversation.id,
        move |service, id| async move {
            service
                .regenerate(id, turn_id, SendOptions::default())
                .await
        },
    )
    .await
}

/// Runs `turn` in the background and answers once it started (its `TurnStarted`
/// event) or failed to start (busy, not found, …). It first waits for a place among
/// the turns being started, and gives it up at the conversation's first event (see
/// [`WebState::concurrent_turn_starts`]).
async fn start<F, Fut>(
    state: &WebState,
    service: &Arc<ConversationService>,
    conversation_id: ConversationId,
    turn: F,
) -> StartedResponse
where
    F: FnOnce(Arc<ConversationService>, ConversationId) -> Fut,
    Fut: Future<Output = Result<TurnOutcome, PipelineError>> + Send + 'static,
{
    let mut place = Some(
        Arc::clone(&state.turn_starts)
            .acquire_owned()
            .await
            // Closed by `WebState::stop_taking_turns`.
            .map_err(|_| ApiError::from(PipelineError::ShuttingDown))?,
    );
    let mut events = service.subscribe(conversation_id);
    let mut task = tokio::spawn(turn(Arc::clone(service), conversation_id));
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Some(event) if matches!(event.kind, EventKind::TurnStarted) => {
                    if let Some(turn_id) = event.turn_id {
                        return Ok((StatusCode::ACCEPTED, Json(Started { turn_id })));
                    }
                }
                // Stored, or on to a summary's model call: the next start may begin.
                Some(_) => drop(place.take()),
                None => break,
            },
            finished = &mut task => return started(finished),
        }
    }
    started(task.await)
}

/// The answer once the turn's task ended before its start was seen.
fn started(finished: Result<Result<TurnOutcome, PipelineError>, JoinError>) -> StartedResponse {
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
/// is kept), in this process or in the one running it.
pub(crate) async fn cancel(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
) -> Result<Json<Cancelled>, ApiError> {
    let conversation = own_conversation(&state, &user, &id).await?;
    Ok(Json(Cancelled {
        cancelled: service.cancel_anywhere(conversation.id).await?,
    }))
}

/// The body of `POST …/compact` (may be empty).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct CompactBody {
    focus: Option<String>,
}

/// `POST /api/conversations/{id}/compact`: summarizes the older turns now (the recent
/// ones stay verbatim; nothing is deleted) and answers with what happened. `409`
/// while a turn runs. Its progress is also in the events (`CompressionStarted`,
/// `CompressionCompleted`).
pub(crate) async fn compact(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
    body: Result<Option<Json<CompactBody>>, JsonRejection>,
) -> Result<Json<CompressionReport>, ApiError> {
    let body = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let focus = body
        .and_then(|Json(b)| b.focus)
        .filter(|f| !f.trim().is_empty());
    let report = service.compact(conversation.id, focus.as_deref()).await?;
    Ok(Json(report))
}

/// The answer of `POST …/undo`.
#[derive(Serialize)]
pub(crate) struct Undone {
    /// The turn taken out of the context; `null` when none was left to undo.
    turn_id: Option<TurnId>,
}

/// `POST /api/conversations/{id}/undo`: takes the last turn still in the context out of
/// it. It stays stored, searchable and in the timeline (its rows marked `undone`), but
/// is no longer sent to the model. `409` while a turn runs or when that turn is already
/// summarized.
pub(crate) async fn undo(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
) -> Result<Json<Undone>, ApiError> {
    let conversation = own_conversation(&state, &user, &id).await?;
    let turn = service.undo_last_turn(conversation.id).await?;
    Ok(Json(Undone {
        turn_id: turn.map(|t| t.id),
    }))
}

/// The body of `POST …/confirmation`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfirmationBody {
    request_id: u64,
    approve: bool,
}

/// `POST /api/conversations/{id}/confirmation`: approves or denies the command waiting
/// for confirmation; `204`, or `404` when that question no longer waits (answered,
/// timed out, or the turn ended).
pub(crate) async fn confirmation(
    State(state): State<WebState>,
    user: CurrentUser,
    Path(id): Path<String>,
    body: Result<Json<ConfirmationBody>, JsonRejection>,
) -> Result<StatusCode, ApiError> {
    let Json(body) = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let confirmer = state
        .confirmer
        .as_ref()
        .ok_or_else(|| ApiError::not_found("confirmation", body.request_id))?;
    confirmer
        .answer(conversation.id, body.request_id, body.approve)
        .map_err(|_| ApiError::not_found("confirmation", body.request_id))?;
    Ok(StatusCode::NO_CONTENT)
}
