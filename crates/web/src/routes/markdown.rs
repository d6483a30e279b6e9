//! `POST /api/markdown?open=`: Markdown (the body, as text) rendered to safe HTML with
//! the renderer and sanitizer of stored answers. The page renders a streaming answer
//! here, a block at a time; `open=true` marks the end still being written (what its
//! last paragraph opened is closed first).

use axum::extract::Query;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::IntoResponse;
use serde::Deserialize;

use crate::markdown::{close_open_inline, to_safe_html};

/// The query string.
#[derive(Deserialize)]
pub(crate) struct RenderParams {
    /// The text is the end of an answer still streaming.
    #[serde(default)]
    open: bool,
}

/// The HTML of the body's Markdown.
pub(crate) async fn render(Query(params): Query<RenderParams>, text: String) -> impl IntoResponse {
    let html = if params.open {
        to_safe_html(&close_open_inline(&text))
    } else {
        to_safe_html(&text)
    };
    (
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            (CACHE_CONTROL, "no-store"),
        ],
        html,
    )
}
