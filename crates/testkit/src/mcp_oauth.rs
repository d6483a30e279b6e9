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
//! - `/authorize` redirects at once with a code (no page: a test follows the redirect);
//! - `/token` checks the PKCE S256 verifier and the `resource` indicator (RFC 8707),
//!   issues refresh tokens (rotated on use) and access tokens whose lifetime the test
//!   sets ([`OAuthMcpServer::set_token_lifetime`]); client credentials for configured
//!   confidential clients;
//! - `/revoke` (RFC 7009), and [`OAuthMcpServer::revoke_all`] for a person who signs the
//!   client out at the provider.

mod grants;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::extract::{Form, Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use self::grants::{Client, Grants, PendingCode, s256};
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

/// Lets an MCP request through with a live bearer token; else `401` with the
/// challenge naming the protected resource metadata. Records the token either way.
async fn require_bearer(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let live = {
        let mut grants = shared.lock();
        grants.bearers.push(bearer.clone());
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

/// RFC 7591: a public client with the redirect URIs it asks for.
async fn register(
    State(shared): State<Shared>,
    Json(body): Json<serde_json::Value>,
) -> (StatusCode, Json<serde_json::Value>) {
    let redirect_uris: Vec<String> = body
        .get("redirect_uris")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    if redirect_uris.is_empty() {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_redirect_uri");
    }
    let mut grants = shared.lock();
    let client_id = grants.next_id("registered");
    grants.clients.insert(
        client_id.clone(),
        Client {
            secret: None,
            redirect_uris: redirect_uris.clone(),
        },
    );
    let mut answer = body;
    if let Some(map) = answer.as_object_mut() {
        map.insert("client_id".to_owned(), json!(client_id));
        map.insert("token_endpoint_auth_method".to_owned(), json!("none"));
    }
    (StatusCode::CREATED, Json(answer))
}

/// An OAuth error body.
fn oauth_error(status: StatusCode, error: &str) -> (StatusCode, Json<serde_json::Value>) {
    (status, Json(json!({ "error": error })))
}

/// The authorize request's parameters.
#[derive(Debug, Deserialize)]
struct AuthorizeQuery {
    response_type: String,
    client_id: String,
    redirect_uri: String,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    state: Option<String>,
    resource: Option<String>,
}

/// Redirects at once with a code, after checking the client, PKCE S256 and `resource`.
async fn authorize(State(shared): State<Shared>, Query(query): Query<AuthorizeQuery>) -> Response {
    let mut grants = shared.lock();
    grants.resources.push(query.resource.clone());
    let known_redirect = grants.clients.get(&query.client_id).is_some_and(|client| {
        client.redirect_uris.is_empty() || client.redirect_uris.contains(&query.redirect_uri)
    });
    let problem = if query.response_type != "code" {
        Some("unsupported_response_type")
    } else if !known_redirect {
        Some("unauthorized_client")
    } else if query.code_challenge_method.as_deref() != Some("S256") {
        Some("invalid_request: PKCE S256 required")
    } else if query.resource.as_deref() != Some(shared.resource().as_str()) {
        Some("invalid_target")
    } else {
        None
    };
    if let Some(problem) = problem {
        return oauth_error(StatusCode::BAD_REQUEST, problem).into_response();
    }
    let code = grants.next_id("code");
    grants.codes.insert(
        code.clone(),
        PendingCode {
            client_id: query.client_id.clone(),
            challenge: query.code_challenge.unwrap_or_default(),
            redirect_uri: query.redirect_uri.clone(),
            resource: shared.resource(),
        },
    );
    let separator = if query.redirect_uri.contains('?') {
        '&'
    } else {
        '?'
    };
    let mut location = format!("{}{separator}code={code}", query.redirect_uri);
    if let Some(state) = query.state {
        location.push_str("&state=");
        location.push_str(&percent_encode(&state));
    }
    Redirect::to(&location).into_response()
}

/// `value` with everything but unreserved characters percent-encoded.
fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The token request's form.
#[derive(Debug, Deserialize)]
struct TokenForm {
    grant_type: String,
    code: Option<String>,
    code_verifier: Option<String>,
    redirect_uri: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    refresh_token: Option<String>,
    resource: Option<String>,
}

/// The token endpoint: authorization code (PKCE, resource), refresh token (rotated),
/// client credentials (a configured secret, resource).
async fn token(
    State(shared): State<Shared>,
    Form(form): Form<TokenForm>,
) -> (StatusCode, Json<serde_json::Value>) {
    let resource = shared.resource();
    let mut grants = shared.lock();
    grants.token_requests.push(form.grant_type.clone());
    grants.resources.push(form.resource.clone());
    let client_id = form.client_id.clone().unwrap_or_default();
    let wrong_resource = form.resource.as_deref().is_some_and(|r| r != resource);
    let answer = match form.grant_type.as_str() {
        "authorization_code" => {
            let pending = form.code.as_deref().and_then(|c| grants.codes.remove(c));
            let verified = pending.as_ref().is_some_and(|p| {
                p.client_id == client_id
                    && form.redirect_uri.as_deref() == Some(p.redirect_uri.as_str())
                    && form.code_verifier.as_deref().map(s256).as_deref()
                        == Some(p.challenge.as_str())
            });
            if !verified {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            }
            if form.resource.as_deref() != pending.map(|p| p.resource).as_deref() {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_target");
            }
            grants.issue(&client_id, true)
        }
        "refresh_token" => {
            let token = form.refresh_token.as_deref().unwrap_or_default();
            if wrong_resource {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_target");
            }
            if !grants.take_refresh(token, &client_id) {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            }
            grants.issue(&client_id, true)
        }
        "client_credentials" => {
            let secret_ok = grants
                .clients
                .get(&client_id)
                .and_then(|c| c.secret.as_deref())
                .is_some_and(|s| Some(s) == form.client_secret.as_deref());
            if !secret_ok {
                return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client");
            }
            if form.resource.as_deref() != Some(resource.as_str()) {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_target");
            }
            grants.issue(&client_id, false)
        }
        _ => return oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type"),
    };
    (StatusCode::OK, Json(json!(answer)))
}

/// The revocation request's form.
#[derive(Debug, Deserialize)]
struct RevokeForm {
    token: String,
}

/// RFC 7009: always 200.
async fn revoke(State(shared): State<Shared>, Form(form): Form<RevokeForm>) -> StatusCode {
    shared.lock().revoke(&form.token);
    StatusCode::OK
}
