//! The signed-in user's MCP servers: `GET /api/mcp/servers` (their view: per-user
//! servers with their own sign-in), `POST /api/mcp/servers/{name}/connect` (the
//! authorization URL to open), and `GET /api/mcp/callback`, where the authorization
//! server sends the browser back: its `state` names the user and server, so it needs
//! no sign-in of its own; it stores the sign-in, connects the server and says so.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::header::{CONTENT_SECURITY_POLICY, CONTENT_TYPE, HOST, REFERRER_POLICY};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use smallebot_application::ports::McpConnectError;
use smallebot_protocol::api::{McpConnectUrl, McpServerList};

use crate::auth::CurrentUser;
use crate::error::ApiError;
use crate::state::WebState;

/// Where the authorization server sends the browser back.
const CALLBACK_PATH: &str = "/api/mcp/callback";

/// `GET /api/mcp/servers`: the enabled servers as the caller sees them.
pub(crate) async fn list(
    State(state): State<WebState>,
    CurrentUser(user): CurrentUser,
) -> Json<McpServerList> {
    match &state.mcp {
        Some(mcp) => Json(mcp.servers(&user).await),
        None => Json(McpServerList {
            servers: Vec::new(),
        }),
    }
}

/// `POST /api/mcp/servers/{name}/connect`: `{"url"}` to open, which comes back to
/// [`CALLBACK_PATH`] on the host the request named.
pub(crate) async fn connect(
    State(state): State<WebState>,
    CurrentUser(user): CurrentUser,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Json<McpConnectUrl>, ApiError> {
    let Some(mcp) = state.mcp.clone() else {
        return Err(ApiError::not_found("MCP server", &name));
    };
    // The guard let only this server's own host names through.
    let host = headers
        .get(HOST)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| ApiError::bad_request("the request names no Host"))?;
    let scheme = if crate::signin::secure(&state, &headers) {
        "https"
    } else {
        "http"
    };
    let redirect_uri = format!("{scheme}://{host}{CALLBACK_PATH}");
    match mcp.connect(&user, &name, &redirect_uri).await {
        Ok(url) => Ok(Json(McpConnectUrl { url })),
        Err(error) => Err(refusal(error, &name)),
    }
}

/// The redirect's parameters.
#[derive(Debug, Deserialize)]
pub(crate) struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /api/mcp/callback?code&state`: finishes the sign-in `state` names; a small
/// page says it is done.
pub(crate) async fn callback(
    State(state): State<WebState>,
    Query(query): Query<CallbackQuery>,
) -> Response {
    let Some(mcp) = state.mcp.clone() else {
        return (StatusCode::NOT_FOUND, "this server connects no MCP servers").into_response();
    };
    if let Some(error) = query.error {
        let detail = query.error_description.unwrap_or_default();
        return (
            StatusCode::BAD_REQUEST,
            format!("the authorization server refused the sign-in: {error} {detail}"),
        )
            .into_response();
    }
    let (Some(code), Some(sign_in)) = (query.code, query.state) else {
        return (
            StatusCode::BAD_REQUEST,
            "the redirect carries no code and state: press Connect again",
        )
            .into_response();
    };
    match mcp.finish(&sign_in, &code).await {
        Ok((_, server)) => done_page(&server),
        Err(McpConnectError::UnknownState) => (
            StatusCode::BAD_REQUEST,
            McpConnectError::UnknownState.to_string(),
        )
            .into_response(),
        Err(error) => (StatusCode::BAD_GATEWAY, error.to_string()).into_response(),
    }
}

/// The page shown once a server is connected.
fn done_page(server: &str) -> Response {
    let page = format!(
        "<!doctype html><meta charset=\"utf-8\"><title>Connected — SmallEBot</title>\
         <p>Connected to <b>{}</b> — you can close this tab.</p>",
        ammonia::clean_text(server)
    );
    (
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            (CONTENT_SECURITY_POLICY, "default-src 'none'"),
            (REFERRER_POLICY, "no-referrer"),
        ],
        page,
    )
        .into_response()
}

/// The HTTP answer of a refused connect.
fn refusal(error: McpConnectError, name: &str) -> ApiError {
    match error {
        McpConnectError::UnknownServer(_) => ApiError::not_found("MCP server", name),
        McpConnectError::NoSignIn(_)
        | McpConnectError::Shared(_)
        | McpConnectError::UnknownState => ApiError::bad_request(error.to_string()),
        McpConnectError::Unavailable(message) => ApiError::unavailable(message),
        McpConnectError::Failed(message) => ApiError::bad_gateway(message),
    }
}
