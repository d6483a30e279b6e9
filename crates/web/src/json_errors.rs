//! Every error answer under `/api/` as the documented `{"error": "…"}`, including the
//! framework's own refusals, which the handlers never see: a body over its limit
//! (`413`), a multipart body without a boundary, a query string or path that does not
//! parse, a body that is not UTF-8, an unknown route (`404`) and a method the route
//! does not take (`405`, with its `Allow` header). Answers that are JSON already (an
//! [`ApiError`](crate::ApiError)) pass as they are; others keep their status and get
//! their text as the message, or one that says what was wrong and what to do.

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use smallebot_core::rules::attachment::human_size;

/// The most of a refusal's own text read to make its message.
const MAX_REFUSAL_TEXT: usize = 16 * 1024;

/// What the error answers need to say about limits.
#[derive(Clone, Copy)]
pub(crate) struct Limits {
    /// The body limit of the JSON and text routes.
    pub(crate) body: usize,
    /// The body limit of `POST …/attachments`.
    pub(crate) upload: usize,
}

/// Rewrites a non-JSON error answer under `/api/` as JSON.
pub(crate) async fn json_errors(
    State(limits): State<Limits>,
    request: Request,
    next: Next,
) -> Response {
    let path = request.uri().path().to_owned();
    let method = request.method().clone();
    let response = next.run(request).await;
    let status = response.status();
    let api = path == "/api" || path.starts_with("/api/");
    let json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !api || json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = to_bytes(body, MAX_REFUSAL_TEXT)
        .await
        .map(|bytes| String::from_utf8_lossy(&bytes).trim().to_owned())
        .unwrap_or_default();
    let message = match status {
        StatusCode::NOT_FOUND if text.is_empty() => {
            format!("no API route {method} {path}: see docs/http-api.md for the routes")
        }
        // (axum adds the `Allow` header once the answer leaves the router)
        StatusCode::METHOD_NOT_ALLOWED => {
            format!("{path} does not take {method}: the Allow header lists the methods it takes")
        }
        StatusCode::PAYLOAD_TOO_LARGE => {
            let limit = if path.ends_with("/attachments") {
                format!(
                    "{} (one message's files, agent.json attachments.maxMessageBytes, and \
                     the multipart framing)",
                    human_size(i64::try_from(limits.upload).unwrap_or(i64::MAX))
                )
            } else {
                human_size(i64::try_from(limits.body).unwrap_or(i64::MAX))
            };
            format!("the request body is over the limit of {limit} for {path}: send less")
        }
        _ if text.is_empty() => format!(
            "{method} {path} failed: {}",
            status.canonical_reason().unwrap_or("error")
        ),
        _ if status.is_server_error() => format!("{method} {path} failed: {text}"),
        _ => format!("bad request to {method} {path}: {text}"),
    };
    let body = serde_json::to_vec(&smallebot_protocol::api::ErrorBody { error: message })
        .unwrap_or_default();
    parts.headers.remove(CONTENT_LENGTH);
    parts
        .headers
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Response::from_parts(parts, Body::from(body))
}
