//! `POST /api/markdown?open=`: Markdown (the body, as text) rendered to safe HTML with
//! the renderer and sanitizer of stored answers, off the async threads
//! ([`crate::render_pool`]). The page renders a streaming answer here, a block at a
//! time; `open=true` marks the end still being written (what its last paragraph opened
//! is closed first). An open end whose last paragraph opened nothing renders as it
//! will once complete: the answer says so ([`SAME_WHEN_COMPLETE`]), and the page keeps
//! that rendering instead of asking again when the answer ends.

use std::borrow::Cow;

use axum::extract::{Query, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{AppendHeaders, IntoResponse};
use serde::Deserialize;

use crate::error::ApiError;
use crate::markdown::{self, close_open_inline};
use crate::state::WebState;

/// The query string.
#[derive(Deserialize)]
pub(crate) struct RenderParams {
    /// The text is the end of an answer still streaming.
    #[serde(default)]
    open: bool,
}

/// The header an `open=true` answer carries (`true`) when nothing was open: the HTML is
/// also the rendering of the text as a complete answer.
pub(crate) const SAME_WHEN_COMPLETE: &str = "x-same-when-complete";

/// The HTML of the body's Markdown.
pub(crate) async fn render(
    State(state): State<WebState>,
    Query(params): Query<RenderParams>,
    text: String,
) -> Result<impl IntoResponse, ApiError> {
    let (html, same) = state
        .renders
        .run(move |cancelled| {
            if params.open {
                let closed = close_open_inline(&text);
                let same = matches!(closed, Cow::Borrowed(_));
                Ok((markdown::render(&closed, cancelled)?, same))
            } else {
                Ok((markdown::render(&text, cancelled)?, true))
            }
        })
        .await?;
    Ok((
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            (CACHE_CONTROL, "no-store"),
        ],
        AppendHeaders(same.then_some((SAME_WHEN_COMPLETE, "true"))),
        html,
    ))
}
