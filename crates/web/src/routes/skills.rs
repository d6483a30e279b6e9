//! Skills: the list a user sees (shared and their own, with problems) and one skill.

use axum::Json;
use axum::extract::{Path, State};
use smallebot_protocol::api::{SkillDetail, SkillList};

use crate::auth::CurrentUser;
use crate::error::ApiError;
use crate::state::WebState;

/// `GET /api/skills`: every skill folder the user sees.
pub(crate) async fn list(
    State(state): State<WebState>,
    CurrentUser(user): CurrentUser,
) -> Result<Json<SkillList>, ApiError> {
    let Some(skills) = state.skills.clone() else {
        return Ok(Json(SkillList { skills: Vec::new() }));
    };
    let list = tokio::task::spawn_blocking(move || skills.list(&user))
        .await
        .map_err(|e| ApiError::internal(format!("reading the skills failed: {e}")))?;
    Ok(Json(list))
}

/// `GET /api/skills/{name}`: one skill (`404` for a name the user has no skill of).
pub(crate) async fn show(
    State(state): State<WebState>,
    CurrentUser(user): CurrentUser,
    Path(name): Path<String>,
) -> Result<Json<SkillDetail>, ApiError> {
    let Some(skills) = state.skills.clone() else {
        return Err(ApiError::not_found("skill", name));
    };
    let wanted = name.clone();
    let found = tokio::task::spawn_blocking(move || skills.show(&user, &wanted))
        .await
        .map_err(|e| ApiError::internal(format!("reading the skill failed: {e}")))?;
    found
        .map(Json)
        .ok_or_else(|| ApiError::not_found("skill", name))
}
