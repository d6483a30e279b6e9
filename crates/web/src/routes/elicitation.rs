//! `POST /api/conversations/{id}/elicitation`: the person's answer to an MCP server's
//! form during a tool call ([`WebElicitor`](crate::WebElicitor)).

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use smallebot_protocol::api::ElicitationBody;

use super::own_conversation;
use crate::auth::CurrentUser;
use crate::elicit::ElicitationRefused;
use crate::error::ApiError;
use crate::state::WebState;

/// Accepts (with `content`), declines or cancels the form waiting in the conversation;
/// `204`. `400` when the content does not fit the form — naming each field and why;
/// the form stays pending — and `404` when that form no longer waits (answered, timed
/// out, or the turn ended) or the conversation is not the caller's.
pub(crate) async fn answer(
    State(state): State<WebState>,
    user: CurrentUser,
    Path(id): Path<String>,
    body: Result<Json<ElicitationBody>, JsonRejection>,
) -> Result<StatusCode, ApiError> {
    let Json(body) = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let not_found = || ApiError::not_found("elicitation", body.request_id);
    let elicitor = state.elicitor.as_ref().ok_or_else(not_found)?;
    elicitor
        .answer(conversation.id, body.request_id, body.action, body.content)
        .map_err(|refused| match refused {
            ElicitationRefused::NothingPending => not_found(),
            ElicitationRefused::Unfit(why) => ApiError::bad_request(format!(
                "the answer does not fit the form: {why}; fix it and send it again, or \
                 decline"
            )),
        })?;
    Ok(StatusCode::NO_CONTENT)
}
