//! One span per HTTP request: a request id (also sent back as `X-Request-Id`), the
//! method and the path, so that everything a request does, a turn it starts included,
//! is logged under that id; and one `request` event with the status and duration.
//! The query string is never logged: a search's words are in it. Every answer says
//! where its time went in a `Server-Timing` header: `store` (the store's work for this
//! request, when the server measured some), `render` (the rest) and `total`.

use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

/// The response header carrying the request's id.
pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// The header that says where a request's time went.
pub const SERVER_TIMING_HEADER: &str = "server-timing";

/// Runs the request inside its span, logs its end and says where its time went.
pub(crate) async fn request_span(
    State(state): State<crate::WebState>,
    request: Request,
    next: Next,
) -> Response {
    let id = format!("{:016x}", rand::random::<u64>());
    let span = tracing::info_span!(
        "request",
        request_id = %id,
        method = %request.method(),
        path = %request.uri().path(),
    );
    let started = Instant::now();
    let timed = span.clone();
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
    // No store time: nothing timed was done (or the store does not time that work, as
    // PostgreSQL's reads): the header says the total only, never a false zero.
    let store = state
        .metrics
        .as_ref()
        .and_then(|m| m.store_time(&timed))
        .filter(|time| !time.is_zero());
    let timing = server_timing(
        store.map(|d| d.as_secs_f64()),
        started.elapsed().as_secs_f64(),
    );
    if let Ok(value) = HeaderValue::from_str(&timing) {
        response.headers_mut().insert(SERVER_TIMING_HEADER, value);
    }
    response
}

/// The `Server-Timing` value for a request of `total` seconds, `store` of them in the
/// store when measured (durations in milliseconds, as the header wants).
fn server_timing(store: Option<f64>, total: f64) -> String {
    let ms = |seconds: f64| seconds * 1000.0;
    match store {
        Some(store) => format!(
            "store;dur={:.3}, render;dur={:.3}, total;dur={:.3}",
            ms(store),
            ms((total - store).max(0.0)),
            ms(total)
        ),
        None => format!("total;dur={:.3}", ms(total)),
    }
}

#[cfg(test)]
mod tests {
    use super::server_timing;

    #[test]
    fn server_timing_names_store_render_and_total_in_milliseconds() {
        let cases = [
            (None, 0.0042, "total;dur=4.200"),
            (
                Some(0.001),
                0.0042,
                "store;dur=1.000, render;dur=3.200, total;dur=4.200",
            ),
            // A clock read after the store's: never a negative render.
            (
                Some(0.005),
                0.0042,
                "store;dur=5.000, render;dur=0.000, total;dur=4.200",
            ),
        ];
        for (store, total, expected) in cases {
            assert_eq!(server_timing(store, total), expected);
        }
    }
}
