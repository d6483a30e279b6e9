//! The test MCP server ([`crate::mcp::TestServer`]'s tools) behind OAuth 2.1, with its
//! own authorization server, all on one 127.0.0.1 port, as the MCP authorization
//! specification describes it:
//!
//! - `/mcp` answers a request without a live bearer token `401` with
//!   `WWW-Authenticate: Bearer resource_metadata="…"`, and records each request's
//!   bearer token ([`OAuthMcpServer::bearer_tokens`]);
//! - protected resource metadata (RFC 9728) at
//!   `/.well-known/oauth-protected-resource/mcp`, authorization server metadata
//!   (RFC 8414) at `/.well-known/oauth-authorization-server`;
//! - dynamic client registration (RFC 7591) at `/register`, or a client the test
//!   configures ([`OAuthMcpServer::add_client`], with a secret for client credentials);
//! - `/authorize` redirects at once with a code (no page: a test follows the redirect),
//!   for the account the test picks by adding `&account=NAME` to the URL (default
//!   `default`); every token acts for that account ([`OAuthMcpServer::account_of`]);
//! - `/token` checks the PKCE S256 verifier and the `resource` indicator (RFC 8707),
//!   issues refresh tokens (rotated on use) and access tokens whose lifetime the test
//!   sets ([`OAuthMcpServer::set_token_lifetime`]); client credentials for configured
//!   confidential clients;
//! - `/revoke` (RFC 7009, recorded: [`OAuthMcpServer::revocations`]), and
//!   [`OAuthMcpServer::revoke_all`] for a person who signs the client out at the
//!   provider;
//! - each `tools/call` recorded with its bearer token ([`OAuthMcpServer::tool_calls`]).

mod authorize;
mod grants;
mod token;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use self::authorize::{authorize, register};
use self::grants::{Client, Grants};
use self::token::{revoke, token};
use crate::TestkitError;
use crate::mcp::TestServer;

/// The server's state, shared by its routes and the test.
#[derive(Clone)]
struct Shared {
    /// `http://127.0.0.1:PORT`: the issuer.
    origin: Arc<str>,
    grants: Arc<Mutex<Grants>>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Grants> {
        self.grants.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The protected resource: the MCP endpoint's URL.
    fn resource(&self) -> String {
        format!("{}/mcp", self.origin)
    }
}

/// An MCP server with OAuth on 127.0.0.1, until dropped or [`OAuthMcpServer::shutdown`].
pub struct OAuthMcpServer {
    shared: Shared,
    cancel: CancellationToken,
}

impl Drop for OAuthMcpServer {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

impl OAuthMcpServer {
    /// Starts the server on a random port.
    ///
    /// # Errors
    /// The listener could not be bound.
    pub async fn start() -> Result<Self, TestkitError> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(TestkitError::Bind)?;
        let addr: SocketAddr = listener.local_addr().map_err(TestkitError::Bind)?;
        let shared = Shared {
            origin: Arc::from(format!("http://{addr}")),
            grants: Arc::new(Mutex::new(Grants::new())),
        };
        let cancel = CancellationToken::new();
        let service: StreamableHttpService<TestServer, LocalSessionManager> =
            StreamableHttpService::new(
                || Ok(TestServer::default()),
                LocalSessionManager::default().into(),
                StreamableHttpServerConfig::default()
                    .with_sse_keep_alive(None)
                    .with_cancellation_token(cancel.child_token()),
            );
        let mcp = Router::new().nest_service("/mcp", service).layer(
            axum::middleware::from_fn_with_state(shared.clone(), require_bearer),
        );
        let router = Router::new()
            .route(
                "/.well-known/oauth-protected-resource/mcp",
                get(resource_metadata),
            )
            .route(
                "/.well-known/oauth-protected-resource",
                get(resource_metadata),
            )
            .route(
                "/.well-known/oauth-authorization-server",
                get(server_metadata),
            )
            .route("/register", post(register))
            .route("/authorize", get(authorize))
            .route("/token", post(token))
            .route("/revoke", post(revoke))
            .with_state(shared.clone())
            .merge(mcp);
        let stop = cancel.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router)
                .with_graceful_shutdown(async move { stop.cancelled_owned().await })
                .await;
        });
        Ok(Self { shared, cancel })
    }

    /// The MCP endpoint (`http://127.0.0.1:PORT/mcp`), also the `resource`.
    #[must_use]
    pub fn url(&self) -> String {
        self.shared.resource()
    }

    /// The issuer (`http://127.0.0.1:PORT`).
    #[must_use]
    pub fn issuer(&self) -> String {
        self.shared.origin.to_string()
    }

    /// Configures a client (a secret makes it confidential, for client credentials).
    pub fn add_client(&self, client_id: &str, secret: Option<&str>) {
        self.shared.lock().clients.insert(
            client_id.to_owned(),
            Client {
                secret: secret.map(str::to_owned),
                redirect_uris: Vec::new(),
            },
        );
    }

    /// How long access tokens issued from now on live (default an hour).
    pub fn set_token_lifetime(&self, lifetime: Duration) {
        self.shared.lock().lifetime = lifetime;
    }

    /// Ends every access token issued so far (refresh tokens keep working).
    pub fn expire_access_tokens(&self) {
        self.shared.lock().expire_all();
    }

    /// Revokes every token issued so far, access and refresh.
    pub fn revoke_all(&self) {
        self.shared.lock().revoke_all();
    }

    /// The bearer token of each MCP request so far (`None`: the request had none).
    #[must_use]
    pub fn bearer_tokens(&self) -> Vec<Option<String>> {
        self.shared.lock().bearers.clone()
    }

    /// Each `tools/call` so far: its bearer token (`None`: none) and the account that
    /// token acts for, and the tool's name.
    #[must_use]
    pub fn tool_calls(&self) -> Vec<SeenCall> {
        let grants = self.shared.lock();
        grants
            .tool_calls
            .iter()
            .map(|(bearer, tool, arguments)| SeenCall {
                account: bearer.as_deref().and_then(|t| grants.account_of(t)),
                bearer: bearer.clone(),
                tool: tool.clone(),
                arguments: arguments.clone(),
            })
            .collect()
    }

    /// The account `token` (access or refresh) acts for, if it was issued here.
    #[must_use]
    pub fn account_of(&self, token: &str) -> Option<String> {
        self.shared.lock().account_of(token)
    }

    /// Each token revoked through the revocation endpoint so far, in order.
    #[must_use]
    pub fn revocations(&self) -> Vec<String> {
        self.shared.lock().revocations.clone()
    }

    /// The grant type of each token request so far.
    #[must_use]
    pub fn token_requests(&self) -> Vec<String> {
        self.shared.lock().token_requests.clone()
    }

    /// The `resource` parameter of each authorize and token request so far.
    #[must_use]
    pub fn resource_parameters(&self) -> Vec<Option<String>> {
        self.shared.lock().resources.clone()
    }

    /// How many clients registered themselves.
    #[must_use]
    pub fn registered_clients(&self) -> usize {
        self.shared
            .lock()
            .clients
            .keys()
            .filter(|id| id.starts_with("registered-"))
            .count()
    }

    /// How many refresh tokens are neither used nor revoked.
    #[must_use]
    pub fn live_refresh_tokens(&self) -> usize {
        self.shared.lock().live_refresh_tokens()
    }

    /// Stops the server.
    pub fn shutdown(&self) {
        self.cancel.cancel();
    }
}

/// One `tools/call` the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct SeenCall {
    /// Its bearer token.
    pub bearer: Option<String>,
    /// The account that token acts for.
    pub account: Option<String>,
    /// The tool called.
    pub tool: String,
    /// Its arguments.
    pub arguments: serde_json::Value,
}

/// The largest MCP request body read.
const MAX_MCP_BODY: usize = 1024 * 1024;

/// Lets an MCP request through with a live bearer token; else `401` with the
/// challenge naming the protected resource metadata. Records the token either way,
/// and each `tools/call` with it.
async fn require_bearer(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_MCP_BODY).await else {
        return (StatusCode::PAYLOAD_TOO_LARGE, "too large").into_response();
    };
    let request = Request::from_parts(parts, axum::body::Body::from(bytes.clone()));
    let called = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .filter(|message| message["method"] == "tools/call")
        .and_then(|message| {
            let params = &message["params"];
            let name = params["name"].as_str()?.to_owned();
            Some((name, params["arguments"].clone()))
        });
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let live = {
        let mut grants = shared.lock();
        grants.bearers.push(bearer.clone());
        if let Some((tool, arguments)) = called {
            grants.tool_calls.push((bearer.clone(), tool, arguments));
        }
        bearer.as_deref().is_some_and(|t| grants.access_valid(t))
    };
    if live {
        return next.run(request).await;
    }
    let challenge = format!(
        "Bearer error=\"invalid_token\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\", scope=\"mcp\"",
        shared.origin
    );
    let mut response = (StatusCode::UNAUTHORIZED, "sign in first").into_response();
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// RFC 9728.
async fn resource_metadata(State(shared): State<Shared>) -> Json<serde_json::Value> {
    Json(json!({
        "resource": shared.resource(),
        "authorization_servers": [shared.origin.as_ref()],
        "scopes_supported": ["mcp"],
        "bearer_methods_supported": ["header"],
    }))
}

/// RFC 8414.
async fn server_metadata(State(shared): State<Shared>) -> Json<serde_json::Value> {
    let origin = &shared.origin;
    Json(json!({
        "issuer": origin.as_ref(),
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/token"),
        "registration_endpoint": format!("{origin}/register"),
        "revocation_endpoint": format!("{origin}/revoke"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post"],
        "scopes_supported": ["mcp"],
    }))
}

/// An OAuth error body.
pub(super) fn oauth_error(
    status: StatusCode,
    error: &str,
) -> (StatusCode, Json<serde_json::Value>) {
    (status, Json(json!({ "error": error })))
}
