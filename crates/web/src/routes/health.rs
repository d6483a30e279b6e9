//! `GET /healthz` (the process runs) and `GET /readyz` (its database answers).

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use smallebot_core::RepositoryError;
use smallebot_protocol::api::Ready;

use crate::error::ApiError;
use crate::state::WebState;

/// How long `/readyz` waits for the database.
const READY_WITHIN: Duration = Duration::from_secs(2);

/// Answers `ok` while the server runs (liveness: never asks the database).
pub(crate) async fn healthz() -> &'static str {
    "ok"
}

/// `{"ready": true}` when the database answers a trivial query within 2 s; `503` with
/// the error otherwise (the page polls it during an outage to recover by itself).
pub(crate) async fn readyz(State(state): State<WebState>) -> Result<Json<Ready>, ApiError> {
    let store = state.service.store();
    match tokio::time::timeout(READY_WITHIN, store.ping()).await {
        Ok(Ok(())) => Ok(Json(Ready { ready: true })),
        // The probe's own action (a read of no conversation) would only confuse.
        Ok(Err(RepositoryError::Unavailable { message, .. })) => {
            Err(ApiError::unavailable(format!(
                "not ready: the database cannot be reached: {message}. Check that it runs \
                 and accepts connections"
            )))
        }
        Ok(Err(err)) => Err(ApiError::unavailable(format!("not ready: {err}"))),
        Err(_) => Err(ApiError::unavailable(format!(
            "not ready: the database did not answer within {} s; check that it runs and \
             accepts connections",
            READY_WITHIN.as_secs()
        ))),
    }
}
