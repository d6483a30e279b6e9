//! `GET /api/conversations/{id}/export?format=md|json`: the conversation as a file to
//! download.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::HeaderValue;
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use smallebot_core::rules::export::{file_name, markdown};

use super::own_conversation;
use crate::auth::{CurrentUser, UserService};
use crate::error::ApiError;
use crate::state::WebState;
use smallebot_application::wire;

/// The query string.
#[derive(Deserialize)]
pub(crate) struct ExportParams {
    /// `md` (the default) or `json`.
    format: Option<String>,
}

/// The conversation as Markdown or as JSON (`ConversationExport`), as an attachment.
pub(crate) async fn export(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
    params: Result<Query<ExportParams>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(params) = params.map_err(|rejection| {
        ApiError::bad_request(format!("bad export parameters: {}", rejection.body_text()))
    })?;
    let json = match params.format.as_deref() {
        None | Some("md") => false,
        Some("json") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "format '{other}' is not known: use md or json"
            )));
        }
    };
    let conversation = own_conversation(&state, &user, &id).await?;
    let export = service.export(conversation.id).await?;
    let name = file_name(&export.conversation.title, if json { "json" } else { "md" });
    // The name has ASCII letters, digits, '-' and '.' only: nothing to quote.
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
        .map_err(|_| ApiError::internal("cannot name the exported file"))?;
    let mut response = if json {
        Json(wire::bodies::export(&export)).into_response()
    } else {
        (
            [(
                CONTENT_TYPE,
                HeaderValue::from_static("text/markdown; charset=utf-8"),
            )],
            markdown(&export),
        )
            .into_response()
    };
    response
        .headers_mut()
        .insert(CONTENT_DISPOSITION, disposition);
    Ok(response)
}
