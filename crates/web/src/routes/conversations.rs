//! Conversations: list, create, read with the timeline, rename, delete.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use smallebot_core::entities::{Conversation, HistoryRow, Role};
use smallebot_core::ids::TurnId;

use super::own_conversation;
use crate::auth::{CurrentUser, UserService};
use crate::error::ApiError;
use crate::markdown;
use crate::state::WebState;

/// `GET /api/conversations`: the caller's conversations, newest first.
pub(crate) async fn list(
    State(state): State<WebState>,
    user: CurrentUser,
) -> Result<Json<Vec<Conversation>>, ApiError> {
    let all = state
        .service
        .store()
        .list_conversations(Some(&user.0))
        .await?;
    Ok(Json(all))
}

/// `POST /api/conversations`: a new, empty conversation.
pub(crate) async fn create(
    user: CurrentUser,
    UserService(service): UserService,
) -> Result<(StatusCode, Json<Conversation>), ApiError> {
    let created = service.create_conversation(&user.0).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// A row of the timeline, marked when compression has summarized it or its turn was
/// undone.
#[derive(Serialize)]
pub(crate) struct TimelineRow {
    /// Whether the row is covered by the conversation's summary.
    summarized: bool,
    /// Whether its turn was taken out of the context (`/undo`).
    undone: bool,
    /// An assistant message's Markdown as sanitized HTML.
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<String>,
    #[serde(flatten)]
    row: HistoryRow,
}

/// The conversation with every stored row.
#[derive(Serialize)]
pub(crate) struct Timeline {
    conversation: Conversation,
    rows: Vec<TimelineRow>,
    /// Whether a turn runs now.
    busy: bool,
    /// The task list as the model sees it (statuses, dependencies, tool calls and
    /// files of each task), when the conversation has one.
    plan: Option<String>,
    /// How full the context window is for the next request.
    context: ContextUsage,
    /// The id of the model the next turn runs on (`null` when there is no choice).
    model: Option<String>,
}

/// The context estimate as the page shows it.
#[derive(Serialize)]
pub(crate) struct ContextUsage {
    used: u64,
    window: u64,
    ratio: f64,
}

/// `GET /api/conversations/{id}`: the conversation and its timeline.
pub(crate) async fn timeline(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
) -> Result<Json<Timeline>, ApiError> {
    let conversation = own_conversation(&state, &user, &id).await?;
    let boundary = conversation.history_boundary();
    let rows = state.service.store().rows_after(conversation.id, 0).await?;
    let undone: Vec<TurnId> = state
        .service
        .store()
        .list_turns(conversation.id)
        .await?
        .into_iter()
        .filter(|t| t.undone_at.is_some())
        .map(|t| t.id)
        .collect();
    let busy = service.is_busy_anywhere(conversation.id).await?;
    let estimate = service.context_estimate(conversation.id).await?;
    let plan = match service.plan() {
        Some(plan) => plan.plan_text(conversation.id).await,
        None => None,
    };
    Ok(Json(Timeline {
        rows: rows
            .into_iter()
            .map(|row| TimelineRow {
                summarized: row.seq() <= boundary,
                undone: undone.contains(&row.turn_id()),
                html: match &row {
                    HistoryRow::Message(m) if m.role == Role::Assistant => {
                        Some(markdown::to_safe_html(&m.content))
                    }
                    _ => None,
                },
                row,
            })
            .collect(),
        model: service.model_of(&conversation),
        conversation,
        busy,
        plan,
        context: ContextUsage {
            used: estimate.used,
            window: estimate.window,
            ratio: estimate.ratio(),
        },
    }))
}

/// `DELETE /api/conversations/{id}`: deletes it and everything in it.
pub(crate) async fn delete(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    let conversation = own_conversation(&state, &user, &id).await?;
    service.delete_conversation(conversation.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The body of `PATCH /api/conversations/{id}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RenameBody {
    title: String,
}

/// The longest title accepted, in characters.
const MAX_TITLE_CHARS: usize = 200;

/// `PATCH /api/conversations/{id}`: `{"title"}` renames it (1–200 characters).
pub(crate) async fn rename(
    State(state): State<WebState>,
    user: CurrentUser,
    Path(id): Path<String>,
    body: Result<Json<RenameBody>, JsonRejection>,
) -> Result<Json<Conversation>, ApiError> {
    let Json(body) = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let title = body.title.trim();
    if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS {
        return Err(ApiError::bad_request(format!(
            "a title has 1 to {MAX_TITLE_CHARS} characters"
        )));
    }
    let store = state.service.store();
    store.rename_conversation(conversation.id, title).await?;
    let renamed = store
        .get_conversation(conversation.id)
        .await?
        .ok_or_else(|| ApiError::not_found("conversation", &id))?;
    Ok(Json(renamed))
}
