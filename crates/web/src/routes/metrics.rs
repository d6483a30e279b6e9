//! `GET /metrics`: the process's metrics for a Prometheus scraper — to a client on
//! loopback as they are, beyond loopback only with the metrics token
//! (`Authorization: Bearer <token>`); without a token configured, only on loopback.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::{Extensions, HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::state::WebState;

/// The metrics, or why not.
pub(crate) async fn metrics(
    State(state): State<WebState>,
    extensions: Extensions,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Some(export) = &state.metrics else {
        return Err(ApiError::not_found("page", "/metrics"));
    };
    let loopback = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .is_some_and(|ConnectInfo(addr)| addr.ip().is_loopback());
    if !loopback {
        let Some(token) = &state.metrics_token else {
            return Err(ApiError::forbidden(
                "metrics are served to loopback only: set SMALLEBOT_METRICS_TOKEN for serve \
                 and send it as `Authorization: Bearer <token>` to scrape from elsewhere",
            ));
        };
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if !given.is_some_and(|given| same_secret(given, token)) {
            return Err(ApiError::unauthorized(
                "the metrics token is missing or wrong: send `Authorization: Bearer <token>` \
                 with the token serve was given in SMALLEBOT_METRICS_TOKEN",
            ));
        }
    }
    let content_type = HeaderValue::from_static(export.content_type());
    Ok(([(header::CONTENT_TYPE, content_type)], export.render()).into_response())
}

/// Whether `given` is `secret`, compared by digest in time that does not depend on
/// where they differ.
fn same_secret(given: &str, secret: &str) -> bool {
    let (a, b) = (Sha256::digest(given), Sha256::digest(secret));
    a.iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_secret_matches_only_itself() {
        let cases = [
            ("s3cret", "s3cret", true),
            ("s3cret", "s3cre", false),
            ("", "x", false),
        ];
        for (given, secret, same) in cases {
            assert_eq!(
                super::same_secret(given, secret),
                same,
                "{given} vs {secret}"
            );
        }
    }
}
