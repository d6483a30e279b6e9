//! One span per HTTP request: a request id (also sent back as `X-Request-Id`), the
//! method and the path, so that everything a request does, a turn it starts included,
//! is logged under that id; and one `request` event with the status and duration.
//! The query string is never logged: a search's words are in it.

use std::time::Instant;

use axum::extract::Request;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

/// The response header carrying the request's id.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Runs the request inside its span and logs its end.
pub(crate) async fn request_span(request: Request, next: Next) -> Response {
    let id = format!("{:016x}", rand::random::<u64>());
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %request.method(),
        path = %request.uri().path(),
    );
    let started = Instant::now();
    let mut response = async move {
        let response = next.run(request).await;
        tracing::info!(
            status = response.status().as_u16(),
            duration_ms = started.elapsed().as_secs_f64() * 1000.0,
            "request"
        );
        response
    }
    .instrument(span)
    .await;
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert(REQUEST_ID_HEADER, value);
    }
    response
}
