//! Conversations: list, create (empty, or with its first message), rename, delete.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use std::sync::Arc;

use smallebot_application::{ConversationService, PipelineError};
use smallebot_core::ids::ConversationId;
use smallebot_core::rules::title_text::clean_title;
use smallebot_protocol::api::{Conversation, CreatedConversation, NewConversationBody, RenameBody};

use super::{own_conversation, turns};
use crate::auth::{CurrentUser, UserService};
use crate::error::ApiError;
use crate::state::WebState;
use smallebot_application::wire;

/// `GET /api/conversations`: the caller's conversations, newest first, without the
/// conversations sub-agents ran in (their parent's timeline links them).
pub(crate) async fn list(
    State(state): State<WebState>,
    user: CurrentUser,
) -> Result<Json<Vec<Conversation>>, ApiError> {
    let all = state
        .service
        .store()
        .list_conversations(Some(&user.0))
        .await?;
    Ok(Json(
        all.iter()
            .filter(|c| c.parent.is_none())
            .map(wire::bodies::conversation)
            .collect(),
    ))
}

/// `POST /api/conversations`: a new conversation — empty without a body; with
/// `{"message", "model"}` created with its model and its first message, whose turn is
/// started as `POST …/messages` starts one (the conversation is deleted again when the
/// turn cannot start, so no empty conversation is left).
pub(crate) async fn create(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    body: Result<Option<Json<NewConversationBody>>, JsonRejection>,
) -> Result<(StatusCode, Json<CreatedConversation>), ApiError> {
    let body = body?.map(|Json(b)| b).unwrap_or_default();
    let Some(message) = body.message else {
        if body.model.is_some() {
            return Err(ApiError::bad_request(
                "a model is chosen with a first message (or later with PUT …/model)",
            ));
        }
        let created = service.create_conversation(&user.0).await?;
        return Ok(created_answer(&created, None));
    };
    if message.trim().is_empty() {
        return Err(ApiError::bad_request(
            "the message is empty: type something",
        ));
    }
    if let Some(model) = &body.model {
        let known: Vec<_> = service.models().iter().map(|c| c.id.clone()).collect();
        if !known.contains(model) {
            return Err(PipelineError::UnknownModel {
                id: model.clone(),
                known: known.join(", "),
            }
            .into());
        }
    }
    if state.turn_starts.is_closed() {
        return Err(PipelineError::ShuttingDown.into());
    }
    let created = service.create_conversation(&user.0).await?;
    let started = first_turn(&state, &service, created.id, &message, body.model).await;
    let turn_id = match started {
        Ok(turn_id) => turn_id,
        Err(refusal) => {
            if let Err(error) = service.delete_conversation(created.id).await {
                tracing::warn!(%error, "cannot delete a conversation whose first turn failed");
            }
            return Err(refusal);
        }
    };
    // Its title is now the fallback made from the message.
    let conversation = state
        .service
        .store()
        .get_conversation(created.id)
        .await?
        .unwrap_or(created);
    Ok(created_answer(&conversation, Some(turn_id)))
}

/// Chooses the new conversation's model and starts its first turn; the turn's id.
async fn first_turn(
    state: &WebState,
    service: &Arc<ConversationService>,
    id: ConversationId,
    message: &str,
    model: Option<String>,
) -> Result<String, ApiError> {
    if model.is_some() {
        service.set_model(id, model.as_deref()).await?;
    }
    let (_, Json(started)) =
        turns::send_text(state, service, id, message.to_owned(), Vec::new()).await?;
    Ok(started.turn_id)
}

fn created_answer(
    conversation: &smallebot_core::entities::Conversation,
    turn_id: Option<String>,
) -> (StatusCode, Json<CreatedConversation>) {
    (
        StatusCode::CREATED,
        Json(CreatedConversation {
            conversation: wire::bodies::conversation(conversation),
            turn_id,
        }),
    )
}

/// `DELETE /api/conversations/{id}`: deletes it and everything in it.
pub(crate) async fn delete(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let conversation = own_conversation(&state, &user, &id).await?;
    service.delete_conversation(conversation.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The longest title accepted, in characters.
const MAX_TITLE_CHARS: usize = 200;

/// `PATCH /api/conversations/{id}`: `{"title"}` renames it (1–200 characters once
/// cleaned by [`clean_title`]).
pub(crate) async fn rename(
    State(state): State<WebState>,
    user: CurrentUser,
    Path(id): Path<String>,
    body: Result<Json<RenameBody>, JsonRejection>,
) -> Result<Json<Conversation>, ApiError> {
    let Json(body) = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let title = clean_title(&body.title);
    if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS {
        return Err(ApiError::bad_request(format!(
            "a title has 1 to {MAX_TITLE_CHARS} characters"
        )));
    }
    let store = state.service.store();
    store.rename_conversation(conversation.id, &title).await?;
    let renamed = store
        .get_conversation(conversation.id)
        .await?
        .ok_or_else(|| ApiError::not_found("conversation", &id))?;
    Ok(Json(wire::bodies::conversation(&renamed)))
}
