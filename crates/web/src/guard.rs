//! Refusing requests from other sites: the `Host` a request names must be one the
//! server answers to (so a DNS name rebound to 127.0.0.1 gets nothing), and a request
//! that says where it comes from (`Origin`) must come from the server's own pages (so
//! another site open in the browser cannot post to it).

use axum::extract::{Request, State};
use axum::http::header::{HOST, ORIGIN};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::WebState;

/// Passes the request on when its `Host` and `Origin` belong to this server (no check
/// when the server was given no hosts), else answers `403`.
pub(crate) async fn same_site(
    State(state): State<WebState>,
    request: Request,
    next: Next,
) -> Response {
    if let Some(refusal) = refusal(&state.allowed_hosts, &request) {
        return refusal.into_response();
    }
    next.run(request).await
}

/// Why `request` is refused, if it is.
fn refusal(allowed: &[String], request: &Request) -> Option<ApiError> {
    if allowed.is_empty() {
        return None;
    }
    let header = |name| {
        request
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap_or("").to_ascii_lowercase())
    };
    let host = header(HOST).or_else(|| request.uri().authority().map(|a| a.to_string()));
    match host {
        Some(host) if allowed.contains(&host) => {}
        Some(host) => {
            return Some(ApiError::forbidden(format!(
                "this server does not answer to the host '{host}'"
            )));
        }
        None => return Some(ApiError::forbidden("the request names no Host")),
    }
    if let Some(origin) = header(ORIGIN) {
        let own = allowed
            .iter()
            .any(|a| origin == format!("http://{a}") || origin == format!("https://{a}"));
        if !own {
            return Some(ApiError::forbidden(format!(
                "requests from '{origin}' are refused: only this server's own pages may call it"
            )));
        }
    }
    None
}
