//! The signed-in user's MCP servers: `GET /api/mcp/servers` (their view: per-user
//! servers with their own sign-in), `POST /api/mcp/servers/{name}/connect` (the
//! authorization URL to open), and `GET /api/mcp/callback`, where the authorization
//! server sends the browser back. The page's sign-in cookie is `SameSite=Strict` and
//! so never comes with that cross-site redirect; instead Connect gives the browser a
//! secret of its own ([`BROWSER_COOKIE`], `SameSite=Lax`, only under `/api/mcp/`) and
//! the callback finishes a sign-in only in the browser that started it — a link an
//! attacker started and sent to someone else is refused, never stored under the
//! attacker's account with the victim's sign-in.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::header::{
    CONTENT_SECURITY_POLICY, CONTENT_TYPE, HOST, REFERRER_POLICY, SET_COOKIE,
};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use smallebot_application::ports::McpConnectError;
use smallebot_protocol::api::{McpConnectUrl, McpServerList};

use crate::auth::{CurrentUser, cookie, new_token, token_digest};
use crate::error::ApiError;
use crate::state::WebState;

/// Where the authorization server sends the browser back.
const CALLBACK_PATH: &str = "/api/mcp/callback";

/// The cookie holding the secret that ties a sign-in to the browser that started it.
pub(crate) const BROWSER_COOKIE: &str = "smallebot_mcp_browser";

/// How long the browser's secret lasts: as long as a sign-in waits for its redirect.
const BROWSER_COOKIE_SECS: u64 = 600;

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
/// [`CALLBACK_PATH`] on the host the request named, and the browser's secret
/// ([`BROWSER_COOKIE`]) the sign-in is tied to.
pub(crate) async fn connect(
    State(state): State<WebState>,
    CurrentUser(user): CurrentUser,
    Path(name): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
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
    // One secret per browser, kept while it lasts, so several sign-ins may be under way.
    let secret = cookie(&headers, BROWSER_COOKIE)
        .filter(|value| value.len() == 64 && value.bytes().all(|b| b.is_ascii_hexdigit()))
        .unwrap_or_else(new_token);
    let secure = if scheme == "https" { "; Secure" } else { "" };
    let set_cookie = HeaderValue::from_str(&format!(
        "{BROWSER_COOKIE}={secret}; HttpOnly; SameSite=Lax; Path=/api/mcp/; \
         Max-Age={BROWSER_COOKIE_SECS}{secure}"
    ))
    .map_err(|_| ApiError::internal("cannot write the cookie that ties the sign-in"))?;
    match mcp
        .connect(&user, &name, &redirect_uri, &token_digest(&secret))
        .await
    {
        Ok(url) => Ok(([(SET_COOKIE, set_cookie)], Json(McpConnectUrl { url })).into_response()),
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

/// `GET /api/mcp/callback?code&state`: finishes the sign-in `state` names when this
/// browser started it; a small page says it is done.
pub(crate) async fn callback(
    State(state): State<WebState>,
    Query(query): Query<CallbackQuery>,
    headers: HeaderMap,
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
    let browser = cookie(&headers, BROWSER_COOKIE).map(|secret| token_digest(&secret));
    match mcp.finish(&sign_in, &code, browser.as_deref()).await {
        Ok((_, server)) => done_page(&server),
        Err(error @ (McpConnectError::UnknownState | McpConnectError::OtherBrowser)) => {
            (StatusCode::BAD_REQUEST, error.to_string()).into_response()
        }
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
        | McpConnectError::UnknownState
        | McpConnectError::OtherBrowser => ApiError::bad_request(error.to_string()),
        McpConnectError::Unavailable(message) => ApiError::unavailable(message),
        McpConnectError::Failed(message) => ApiError::bad_gateway(message),
    }
}
