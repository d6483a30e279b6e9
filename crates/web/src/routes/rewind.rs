//! `POST /api/conversations/{id}/rewind`: takes a conversation's turns back — what
//! their tool calls did to the workspace's files, the turns themselves, or both — or
//! undoes the last rewind of its files.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use smallebot_application::ports::RewindError;
use smallebot_protocol::api::{RewindAnswer, RewindBody};

use super::own_conversation;
use crate::auth::CurrentUser;
use crate::error::ApiError;
use crate::state::WebState;

/// Rewinds the caller's conversation as the body says ([`RewindBody`]; an empty body:
/// the last turn's files): `200` with what was restored, the conflicts left alone and
/// what could not be brought back; `409` while a turn of it runs; `400` for a turn
/// that is not one of it, nothing to undo, or a body with unknown fields; `404` for a
/// conversation that is not the caller's.
pub(crate) async fn rewind(
    State(state): State<WebState>,
    user: CurrentUser,
    Path(id): Path<String>,
    body: Result<Option<Json<RewindBody>>, JsonRejection>,
) -> Result<Json<RewindAnswer>, ApiError> {
    let body = body?.map(|Json(body)| body).unwrap_or_default();
    let conversation = own_conversation(&state, &user, &id).await?;
    let rewind = state.rewind.as_ref().ok_or_else(|| {
        ApiError::bad_request(
            "this server keeps no checkpoints of its workspace: nothing to rewind",
        )
    })?;
    let answer = rewind
        .rewind(&conversation.user_name, conversation.id, &body)
        .await
        .map_err(|error| match error {
            RewindError::Refused(message) => ApiError::bad_request(message),
            RewindError::Busy(message) => ApiError::conflict(message),
            RewindError::Failed(message) => ApiError::internal(message),
        })?;
    Ok(Json(answer))
}
