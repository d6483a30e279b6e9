//! `GET /api/search?q=&days=&limit=`: full-text search over the caller's history, with
//! the engine and limits of the `SearchHistory` tool.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use serde::Deserialize;
use smallebot_core::entities::{SearchQuery, SearchScope};
use smallebot_core::rules::search_limits::{clamp_max_results, since_days_ago};

use crate::auth::CurrentUser;
use crate::error::ApiError;
use crate::state::WebState;
use smallebot_application::wire;

/// The query string.
#[derive(Deserialize)]
pub(crate) struct SearchParams {
    /// The words to find (all must occur).
    q: String,
    /// Only rows from the last N days.
    days: Option<u64>,
    /// Most matches (default 10, clamped to 1–50).
    limit: Option<u64>,
}

/// Matches newest first, each with its conversation, `seq`, kind, text and snippet. Only the
/// caller's conversations are searched.
pub(crate) async fn search(
    State(state): State<WebState>,
    user: CurrentUser,
    params: Result<Query<SearchParams>, QueryRejection>,
) -> Result<Json<Vec<smallebot_protocol::api::SearchHit>>, ApiError> {
    let Query(params) = params.map_err(|rejection| {
        ApiError::bad_request(format!("bad search parameters: {}", rejection.body_text()))
    })?;
    if params.q.trim().is_empty() {
        return Err(ApiError::bad_request(
            "q is empty: give the words to search for",
        ));
    }
    let since = match params.days {
        Some(days) => Some(
            since_days_ago(days, chrono::Utc::now())
                .map_err(|err| ApiError::bad_request(format!("days: {err}")))?,
        ),
        None => None,
    };
    let query = SearchQuery {
        text: params.q.clone(),
        scope: SearchScope::User(user.0.to_string()),
        since,
        limit: clamp_max_results(params.limit),
    };
    let hits = state.service.store().search(&query).await?;
    Ok(Json(
        hits.iter()
            .map(|hit| wire::bodies::search_hit(hit, &params.q))
            .collect(),
    ))
}
