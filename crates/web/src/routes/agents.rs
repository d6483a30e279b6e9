//! Agents: the agent definitions a user sees (built-in, shared and their own, with the
//! problems of the files that do not load).

use axum::Json;
use axum::extract::State;
use smallebot_protocol::api::AgentList;

use crate::auth::CurrentUser;
use crate::error::ApiError;
use crate::state::WebState;

/// `GET /api/agents`: every agent definition the user sees.
pub(crate) async fn list(
    State(state): State<WebState>,
    CurrentUser(user): CurrentUser,
) -> Result<Json<AgentList>, ApiError> {
    let Some(agents) = state.agents.clone() else {
        return Ok(Json(AgentList { agents: Vec::new() }));
    };
    let list = tokio::task::spawn_blocking(move || agents.list(&user))
        .await
        .map_err(|e| ApiError::internal(format!("reading the agent definitions failed: {e}")))?;
    Ok(Json(list))
}
