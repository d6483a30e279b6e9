//! The page: HTML, script and style embedded in the binary (no CDN, no build step).

use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::response::IntoResponse;

const INDEX_HTML: &str = include_str!("../../assets/index.html");
const APP_JS: &str = include_str!("../../assets/app.js");
const MODELS_JS: &str = include_str!("../../assets/models.js");
const PLAN_JS: &str = include_str!("../../assets/plan.js");
const APP_CSS: &str = include_str!("../../assets/app.css");

/// Only the server's own script, style and connections; no inline script, no framing.
/// A second line of defence behind the sanitized answers.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// `GET /`: the page.
pub(crate) async fn index() -> impl IntoResponse {
    (
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            (CONTENT_SECURITY_POLICY, CSP),
            (X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (X_FRAME_OPTIONS, "DENY"),
            (REFERRER_POLICY, "no-referrer"),
            (CACHE_CONTROL, "no-cache"),
        ],
        INDEX_HTML,
    )
}

/// `GET /assets/app.js`.
pub(crate) async fn script() -> impl IntoResponse {
    asset("text/javascript; charset=utf-8", APP_JS)
}

/// `GET /assets/models.js`: the model picker.
pub(crate) async fn models_script() -> impl IntoResponse {
    asset("text/javascript; charset=utf-8", MODELS_JS)
}

/// `GET /assets/plan.js`: the task drawer's rendering of the plan.
pub(crate) async fn plan_script() -> impl IntoResponse {
    asset("text/javascript; charset=utf-8", PLAN_JS)
}

/// `GET /assets/app.css`.
pub(crate) async fn style() -> impl IntoResponse {
    asset("text/css; charset=utf-8", APP_CSS)
}

fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    (
        [
            (CONTENT_TYPE, content_type),
            (X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
}
