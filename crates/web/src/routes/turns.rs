//! Turns: start one with a message, edit a user message, regenerate an answer, cancel
//! the running turn, compact now, answer a command confirmation.

use std::future::Future;
use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use smallebot_application::{ConversationService, PipelineError, SendOptions, TurnHandle};
use smallebot_core::ids::{AttachmentId, ConversationId, MessageId, TurnId};
use smallebot_protocol::api::{
    Cancelled, CompactBody, CompactReport, ConfirmationBody, ConfirmationScope, Started, TextBody,
    Undone,
};

use super::own_conversation;
use crate::auth::{CurrentUser, UserService};
use crate::error::ApiError;
use crate::state::WebState;
use smallebot_application::ports::Answer;
use smallebot_application::wire;

type StartedResponse = Result<(StatusCode, Json<Started>), ApiError>;

/// `POST /api/conversations/{id}/messages`: starts a turn and answers as soon as it is
/// stored (`202` with its id); the turn runs on, its progress is in the events. Beside
/// a new conversation's first turn the service asks the model for a title.
pub(crate) async fn send(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
    body: Result<Json<TextBody>, JsonRejection>,
) -> StartedResponse {
    let Json(body) = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let attachments = attachment_ids(&body.attachments)?;
    send_text(&state, &service, conversation.id, body.text, attachments).await
}

/// The ids of a message's `attachments`; `400` for one that is not an id.
fn attachment_ids(raw: &[String]) -> Result<Vec<AttachmentId>, ApiError> {
    raw.iter()
        .map(|id| {
            id.parse().map_err(|_| {
                ApiError::bad_request(format!(
                    "attachment {id} is not an attachment id: name the ids POST …/attachments answered"
                ))
            })
        })
        .collect()
}

/// Starts a turn with `text` and the uploaded `attachments` in `conversation_id` (a
/// title is asked for beside a conversation's first turn): what `POST …/messages` and
/// a conversation created with its first message do.
pub(crate) async fn send_text(
    state: &WebState,
    service: &Arc<ConversationService>,
    conversation_id: ConversationId,
    text: String,
    attachments: Vec<AttachmentId>,
) -> StartedResponse {
    let options = SendOptions {
        title: true,
        attachments,
        ..SendOptions::default()
    };
    start(state, service, conversation_id, |service, id| async move {
        service.start(id, &text, options).await
    })
    .await
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
    if !body.attachments.is_empty() {
        return Err(ApiError::bad_request(
            "an edit keeps the message's files and takes no new ones: send them with a new message",
        ));
    }
    let conversation = own_conversation(&state, &user, &id).await?;
    let message_id: MessageId = message_id
        .parse()
        .map_err(|_| ApiError::not_found("message", &message_id))?;
    start(
        &state,
        &service,
        conversation.id,
        |service, id| async move {
            service
                .start_edit(id, message_id, &body.text, SendOptions::default())
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
        |service, id| async move {
            service
                .start_regenerate(id, turn_id, SendOptions::default())
                .await
        },
    )
    .await
}

/// Starts a turn with `begin` (one of the service's `start…`) and answers with its id
/// once the service says it is stored. It first waits for a place among the turns being
/// started ([`WebState::concurrent_turn_starts`]) and holds it until then — or only
/// until the conversation's first event, a compression before the turn, so that a
/// summary's model call holds no place. The turn runs on in the service; its events
/// reach the page through the event stream.
async fn start<F, Fut>(
    state: &WebState,
    service: &Arc<ConversationService>,
    conversation_id: ConversationId,
    begin: F,
) -> StartedResponse
where
    F: FnOnce(Arc<ConversationService>, ConversationId) -> Fut,
    Fut: Future<Output = Result<TurnHandle, PipelineError>>,
{
    let mut place = Some(
        Arc::clone(&state.turn_starts)
            .acquire_owned()
            .await
            // Closed by `WebState::stop_taking_turns`.
            .map_err(|_| ApiError::from(PipelineError::ShuttingDown))?,
    );
    // A conversation's first turn since the server started starts its session.
    state.sessions.turn_starting(service, conversation_id).await;
    // Only to give the place up early; which event it is does not matter.
    let mut progress = service.subscribe(conversation_id);
    let started = begin(Arc::clone(service), conversation_id);
    tokio::pin!(started);
    let handle = loop {
        tokio::select! {
            handle = &mut started => break handle?,
            Some(_) = progress.recv(), if place.is_some() => drop(place.take()),
        }
    };
    Ok((
        StatusCode::ACCEPTED,
        Json(Started {
            turn_id: handle.turn_id.to_string(),
        }),
    ))
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
) -> Result<Json<CompactReport>, ApiError> {
    let body = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let focus = body
        .and_then(|Json(b)| b.focus)
        .filter(|f| !f.trim().is_empty());
    let report = service.compact(conversation.id, focus.as_deref()).await?;
    Ok(Json(wire::bodies::compact_report(&report)))
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
        turn_id: turn.map(|t| t.id.to_string()),
    }))
}

/// `POST /api/conversations/{id}/confirmation`: approves (once, for the conversation,
/// or always) or denies the tool call waiting for confirmation; `204`, or `404` when that question no longer waits (answered,
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
    let answer = match (body.approve, body.scope) {
        (false, _) => Answer::Deny,
        (true, ConfirmationScope::Once) => Answer::Once,
        (true, ConfirmationScope::Conversation) => Answer::Conversation,
        (true, ConfirmationScope::Always) => Answer::Always,
    };
    confirmer
        .answer(conversation.id, body.request_id, answer)
        .map_err(|_| ApiError::not_found("confirmation", body.request_id))?;
    Ok(StatusCode::NO_CONTENT)
}
