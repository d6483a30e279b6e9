//! `GET /api/permissions`: the signed-in user's live permission grants (what they
//! allowed beyond one call when asked); `DELETE /api/permissions/{id}`: revokes one of
//! them, so calls like the one that prompted it are asked about again. Only the
//! caller's own: another user's grant is as unknown as no grant (`404`).

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use smallebot_application::wire;
use smallebot_core::entities::{GrantFilter, GrantId};
use smallebot_protocol::api::PermissionGrantList;

use crate::auth::CurrentUser;
use crate::error::ApiError;
use crate::state::WebState;

/// The caller's live grants, oldest first.
pub(crate) async fn list(
    State(state): State<WebState>,
    user: CurrentUser,
) -> Result<Json<PermissionGrantList>, ApiError> {
    let filter = GrantFilter {
        user: Some(user.0.to_string()),
        ..GrantFilter::default()
    };
    let grants = state.service.store().permission_grants(&filter).await?;
    Ok(Json(wire::grants::grant_list(&grants)))
}

/// Revokes the caller's grant `id`; `404` for an id no grant of theirs has.
pub(crate) async fn revoke(
    State(state): State<WebState>,
    user: CurrentUser,
    Path(raw_id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let not_found = || ApiError::not_found("permission grant", &raw_id);
    let id: GrantId = raw_id.parse().map_err(|_| not_found())?;
    let me = user.0.to_string();
    match state
        .service
        .store()
        .revoke_permission_grant(id, Some(&me), chrono::Utc::now())
        .await?
    {
        Some(_) => Ok(StatusCode::NO_CONTENT),
        None => Err(not_found()),
    }
}
