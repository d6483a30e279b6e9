//! The user's MCP resources and prompts for the message box: `GET /api/mcp/resources`
//! and `GET /api/mcp/prompts` (what `@` and `/` offer), `POST /api/mcp/resources/read`
//! (a resource's parts as files, each within the per-file limit of an upload, which the
//! page then sends with the message as it sends uploaded files: counted, stored once,
//! searchable) and `POST /api/mcp/prompts/{server}/{name}` (a prompt's text).

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use base64::Engine as _;
use smallebot_application::ports::{McpOfferError, UserMcpOffers};
use smallebot_core::rules::uri_template::expand_uri_template;
use smallebot_protocol::api::{
    McpPromptGet, McpPromptList, McpPromptText, McpResourceFile, McpResourceFiles, McpResourceList,
    McpResourceRead,
};
use std::sync::Arc;

use super::attachments::{file_too_large, over_file_limit};
use crate::auth::{CurrentUser, UserService};
use crate::error::ApiError;
use crate::state::WebState;

/// `GET /api/mcp/resources`: the resources and templates of the caller's servers.
pub(crate) async fn resources(
    State(state): State<WebState>,
    CurrentUser(user): CurrentUser,
) -> Json<McpResourceList> {
    Json(match &state.mcp_offers {
        Some(offers) => offers.resources(&user).await,
        None => McpResourceList {
            resources: Vec::new(),
            templates: Vec::new(),
        },
    })
}

/// `GET /api/mcp/prompts`: the prompts of the caller's servers.
pub(crate) async fn prompts(
    State(state): State<WebState>,
    CurrentUser(user): CurrentUser,
) -> Json<McpPromptList> {
    Json(match &state.mcp_offers {
        Some(offers) => offers.prompts(&user).await,
        None => McpPromptList {
            prompts: Vec::new(),
        },
    })
}

/// The offers of `state`, or `404` for `server` when the serve connects no servers.
fn offers_of(state: &WebState, server: &str) -> Result<Arc<dyn UserMcpOffers>, ApiError> {
    state
        .mcp_offers
        .clone()
        .ok_or_else(|| ApiError::not_found("MCP server", server))
}

/// `POST /api/mcp/resources/read` `{server, uri, arguments}`: the resource (a template
/// expanded with `arguments`) as files. A required template argument missing is `400`
/// naming it, a part over `attachments.maxFileBytes` `413` as an upload's would be, an
/// unknown server `404`, a read that failed `424`.
pub(crate) async fn read(
    State(state): State<WebState>,
    CurrentUser(user): CurrentUser,
    UserService(service): UserService,
    body: Result<Json<McpResourceRead>, JsonRejection>,
) -> Result<Json<McpResourceFiles>, ApiError> {
    let Json(body) = body?;
    let offers = offers_of(&state, &body.server)?;
    let uri = expand_uri_template(&body.uri, &body.arguments).map_err(|missing| {
        refusal(
            McpOfferError::MissingArguments {
                what: format!(
                    "the resource template {} of the MCP server '{}'",
                    body.uri, body.server
                ),
                missing,
            },
            &body.server,
        )
    })?;
    let limits = service.settings().attachments;
    let parts = offers
        .read_resource(&user, &body.server, &uri)
        .await
        .map_err(|error| refusal(error, &body.server))?;
    let mut files = Vec::with_capacity(parts.len());
    for part in parts {
        if over_file_limit(part.content.len(), &limits) {
            return Err(file_too_large(&part.name, &limits));
        }
        files.push(McpResourceFile {
            size: u64::try_from(part.content.len()).unwrap_or(u64::MAX),
            base64: base64::engine::general_purpose::STANDARD.encode(&part.content),
            name: part.name,
        });
    }
    Ok(Json(McpResourceFiles { uri, files }))
}

/// `POST /api/mcp/prompts/{server}/{name}` `{arguments}`: the prompt's text. A required
/// argument missing is `400` naming it, an unknown server or prompt `404`, a request
/// that failed `424`.
pub(crate) async fn prompt(
    State(state): State<WebState>,
    CurrentUser(user): CurrentUser,
    Path((server, name)): Path<(String, String)>,
    body: Result<Json<McpPromptGet>, JsonRejection>,
) -> Result<Json<McpPromptText>, ApiError> {
    let Json(body) = body?;
    let offers = offers_of(&state, &server)?;
    let text = offers
        .prompt_text(&user, &server, &name, &body.arguments)
        .await
        .map_err(|error| refusal(error, &server))?;
    Ok(Json(McpPromptText { text }))
}

/// The HTTP answer of a refused read or prompt.
fn refusal(error: McpOfferError, server: &str) -> ApiError {
    match error {
        McpOfferError::UnknownServer(_) => ApiError::not_found("MCP server", server),
        McpOfferError::UnknownPrompt { server, prompt } => {
            ApiError::not_found("MCP prompt", format!("{server}:{prompt}"))
        }
        McpOfferError::MissingArguments { .. } => ApiError::bad_request(error.to_string()),
        McpOfferError::Failed(message) => ApiError::failed_dependency(message),
    }
}
