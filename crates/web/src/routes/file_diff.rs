//! `GET /api/conversations/{id}/turns/{turn_id}/diff?path=`: what a turn's tool calls
//! did to one file's text, from the contents its checkpoint kept.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use smallebot_core::entities::TurnFileChange;
use smallebot_core::repository::Store;
use smallebot_core::rules::checkpoint::FileState;
use smallebot_core::rules::file_diff::unified;
use smallebot_protocol::api::FileDiff;

use super::own_conversation;
use crate::auth::CurrentUser;
use crate::error::ApiError;
use crate::state::WebState;

/// The largest content (either side) a diff is made of.
const DIFF_MAX_BYTES: u64 = 1024 * 1024;

/// The query: which file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiffQuery {
    path: String,
}

/// One side of a change as text: `Ok(text)` (empty for no file), or why it cannot be
/// shown.
async fn side(
    store: &dyn Store,
    state: Option<&FileState>,
) -> Result<Result<String, String>, ApiError> {
    let Some(state) = state else {
        return Ok(Ok(String::new()));
    };
    if state.size > DIFF_MAX_BYTES {
        return Ok(Err(format!(
            "the file is over {} KiB: no diff is shown",
            DIFF_MAX_BYTES / 1024
        )));
    }
    Ok(match store.checkpoint_content(&state.sha256).await? {
        None => Err("its contents are no longer kept".to_owned()),
        Some(bytes) => String::from_utf8(bytes).map_err(|_| "it is not text".to_owned()),
    })
}

/// The diff of `change`, or a note saying why there is none.
async fn diff_of(store: &dyn Store, change: &TurnFileChange) -> Result<FileDiff, ApiError> {
    let path = change.change.path.clone();
    let noted = |note: String| FileDiff {
        path: path.clone(),
        diff: None,
        note: Some(note),
    };
    if let Some(reason) = &change.not_captured {
        return Ok(noted(format!("its contents were not kept: {reason}")));
    }
    let before = match side(store, change.change.before.as_ref()).await? {
        Ok(text) => text,
        Err(note) => return Ok(noted(note)),
    };
    let after = match side(store, change.change.after.as_ref()).await? {
        Ok(text) => text,
        Err(note) => return Ok(noted(note)),
    };
    let shown = path.clone();
    let diff = tokio::task::spawn_blocking(move || unified(&shown, Some(&before), &after))
        .await
        .map_err(|err| ApiError::internal(format!("the diff stopped: {err}")))?;
    Ok(match diff {
        Some(diff) => FileDiff {
            path,
            diff: Some(diff),
            note: None,
        },
        None => noted("no line changed (only its name, or nothing but line endings)".to_owned()),
    })
}

/// The diff of the file `path` that turn `turn_id` of the caller's conversation `id`
/// changed; `404` when that turn changed no such file.
pub(crate) async fn diff(
    State(state): State<WebState>,
    user: CurrentUser,
    Path((id, turn_id)): Path<(String, String)>,
    Query(query): Query<DiffQuery>,
) -> Result<Json<FileDiff>, ApiError> {
    let conversation = own_conversation(&state, &user, &id).await?;
    let store = state.service.store();
    let changes = store.file_changes(conversation.id).await?;
    let change = changes
        .iter()
        .find(|c| {
            c.rewind.is_none() && c.turn_id.to_string() == turn_id && c.change.path == query.path
        })
        .ok_or_else(|| ApiError::not_found("file change", &query.path))?;
    Ok(Json(diff_of(store.as_ref(), change).await?))
}
