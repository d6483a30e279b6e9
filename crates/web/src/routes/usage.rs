//! `GET /api/usage?user=&since=&by=&conversation=`: the recorded model requests summed,
//! as `smallebot usage --json` prints them. A user sees only their own; an admin
//! (`users add --admin`, or the local user of a server without users) everyone's.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use serde::Deserialize;
use smallebot_application::wire;
use smallebot_core::entities::UsageFilter;
use smallebot_core::ids::ConversationId;
use smallebot_core::rules::usage_report::{UsageGrouping, parse_since};
use smallebot_protocol::api::UsageReport;

use crate::auth::CurrentUser;
use crate::error::ApiError;
use crate::state::WebState;

/// The query string.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct UsageParams {
    /// Only this user's requests (another user's: admins only).
    user: Option<String>,
    /// Only requests that ended from this day (`2026-03-01`) or time (RFC 3339) on.
    since: Option<String>,
    /// `day`, `model` (the default), `user` or `conversation`.
    by: Option<String>,
    /// Only the requests billed to this conversation (its sub-agents' included).
    conversation: Option<String>,
}

/// Whether `user` sees every user's usage.
pub(crate) async fn is_admin(state: &WebState, user: &CurrentUser) -> Result<bool, ApiError> {
    match &state.users {
        // Without users the one user is the machine's owner.
        None => Ok(true),
        Some(users) => Ok(users.is_admin(&user.0).await?),
    }
}

/// The usage report the parameters select, within what the caller may see.
pub(crate) async fn usage(
    State(state): State<WebState>,
    user: CurrentUser,
    params: Result<Query<UsageParams>, QueryRejection>,
) -> Result<Json<UsageReport>, ApiError> {
    let Query(params) = params.map_err(|rejection| {
        ApiError::bad_request(format!("bad usage parameters: {}", rejection.body_text()))
    })?;
    let by = match params.by.as_deref() {
        None => UsageGrouping::Model,
        Some(word) => {
            UsageGrouping::parse(word).map_err(|e| ApiError::bad_request(format!("by: {e}")))?
        }
    };
    let since = match params.since.as_deref() {
        None => None,
        Some(text) => {
            Some(parse_since(text).map_err(|e| ApiError::bad_request(format!("since: {e}")))?)
        }
    };
    let conversation = match params.conversation.as_deref() {
        None => None,
        Some(raw) => Some(raw.parse::<ConversationId>().map_err(|_| {
            ApiError::bad_request(format!(
                "conversation: '{raw}' is no conversation id (GET /api/conversations lists them)"
            ))
        })?),
    };
    let me = user.0.to_string();
    let user_filter = if is_admin(&state, &user).await? {
        params.user
    } else {
        match params.user {
            Some(other) if other != me => {
                return Err(ApiError::forbidden(
                    "only an admin sees another user's usage; leave out user= to see your own",
                ));
            }
            _ => Some(me),
        }
    };
    let filter = UsageFilter {
        user: user_filter,
        since,
        conversation,
        ..UsageFilter::default()
    };
    let records = state.service.store().usage_records(&filter).await?;
    Ok(Json(wire::usage::report(&filter, by, &records)))
}
