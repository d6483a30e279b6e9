//! `smallebot mcp login NAME`: discovery from the server's `401` (its
//! `WWW-Authenticate` names the protected resource metadata, RFC 9728, which names the
//! authorization server, RFC 8414), the client registered dynamically (RFC 7591) or
//! the configured `clientId`, the authorization code flow with PKCE and the `resource`
//! indicator (RFC 8707) through the SDK, the redirect caught by a listener on
//! 127.0.0.1, and the sign-in stored sealed for the person. Also `logout` and the
//! state `mcp list` shows.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::transport::auth::{AuthorizationManager, AuthorizationRequest, AuthorizationSession};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::credentials::McpSignIns;
use crate::error::McpAuthError;
use crate::settings::{McpAuth, McpServerSettings, McpTransport};

/// The largest redirect request read, in bytes.
const MAX_REDIRECT_REQUEST: usize = 16 * 1024;

/// The page the browser shows once the redirect arrived.
const DONE_PAGE: &str = "<!doctype html><title>SmallEBot</title><p>Signed in. You can close \
                         this tab and go back to SmallEBot.</p>";

/// A person's sign-in to one server, as `mcp list` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInState {
    /// Never signed in, or signed out.
    NotSignedIn,
    /// Signed in: a token that is still valid, or one that can be refreshed.
    SignedIn,
    /// The token expired and cannot be refreshed, or the server refused it.
    Expired,
}

impl SignInState {
    /// The words `mcp list` prints.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Self::NotSignedIn => "not signed in",
            Self::SignedIn => "signed in",
            Self::Expired => "expired",
        }
    }
}

/// The server's URL and OAuth settings, when a person signs in to it.
fn oauth_server(settings: &McpServerSettings) -> Result<(&str, &McpAuth), McpAuthError> {
    match &settings.transport {
        McpTransport::Http {
            url,
            auth: auth @ McpAuth::OAuth { .. },
            ..
        } => Ok((url, auth)),
        _ => Err(McpAuthError::NotOAuth(settings.name.clone())),
    }
}

/// The person's sign-in state with `settings`' server, read from the store.
///
/// # Errors
/// The server does not use OAuth, no key, or the store failed.
pub async fn sign_in_state(
    settings: &McpServerSettings,
    sign_ins: &McpSignIns,
) -> Result<SignInState, McpAuthError> {
    oauth_server(settings)?;
    let Some(stored) = sign_ins.load(&settings.name).await? else {
        return Ok(SignInState::NotSignedIn);
    };
    let value = serde_json::to_value(&stored).unwrap_or_default();
    let token = &value["token_response"];
    if token.is_null() {
        return Ok(SignInState::Expired);
    }
    if token["refresh_token"].is_string() {
        return Ok(SignInState::SignedIn);
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let ends = value["token_received_at"]
        .as_u64()
        .zip(token["expires_in"].as_u64())
        .map(|(at, lasts)| at.saturating_add(lasts));
    Ok(match ends {
        Some(ends) if ends <= now => SignInState::Expired,
        _ => SignInState::SignedIn,
    })
}

/// Signs the person in to `settings`' server: shows the authorization URL with
/// `show_url` (which prints it and opens a browser), waits up to `timeout` for the
/// redirect to a listener on 127.0.0.1, exchanges the code and stores the sign-in.
///
/// # Errors
/// The server does not use OAuth, no key (checked first: nothing is stored without
/// it), discovery, registration or the exchange failed, or the redirect did not come.
pub async fn login(
    settings: &McpServerSettings,
    sign_ins: &McpSignIns,
    timeout: Duration,
    show_url: impl FnOnce(&str),
) -> Result<(), McpAuthError> {
    oauth_server(settings)?;
    let server = settings.name.as_str();
    let failed = |reason: String| McpAuthError::SignIn {
        server: server.to_owned(),
        reason,
    };
    // Refuse before anything happens when the sign-in could not be stored.
    sign_ins.load(server).await?;
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| failed(format!("no listener on 127.0.0.1 for the redirect: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| failed(format!("no listener on 127.0.0.1 for the redirect: {e}")))?
        .port();
    let redirect_uri = format!("http://127.0.0.1:{port}/callback");
    let session = authorization_session(settings, sign_ins, &redirect_uri).await?;
    show_url(&session.auth_url);
    let path = tokio::time::timeout(timeout, redirect_path(&listener))
        .await
        .map_err(|_| McpAuthError::Timeout {
            server: server.to_owned(),
            seconds: timeout.as_secs(),
            redirect: redirect_uri.clone(),
        })?
        .map_err(|e| failed(format!("reading the redirect failed: {e}")))?;
    session
        .handle_callback_url(&format!("http://127.0.0.1:{port}{path}"))
        .await
        .map_err(|e| failed(format!("exchanging the code for a token failed: {e}")))?;
    Ok(())
}

/// A sign-in to `settings`' server under way for `sign_ins`' user: discovery from the
/// server's `401`, the client registered (or `clientId`), PKCE and the `resource`
/// indicator; its `auth_url` comes back to `redirect_uri`, and the exchange stores the
/// sign-in sealed.
///
/// # Errors
/// The server does not use OAuth, or discovery or registration failed.
pub(crate) async fn authorization_session(
    settings: &McpServerSettings,
    sign_ins: &McpSignIns,
    redirect_uri: &str,
) -> Result<AuthorizationSession, McpAuthError> {
    let (url, auth) = oauth_server(settings)?;
    let server = settings.name.as_str();
    let failed = |reason: String| McpAuthError::SignIn {
        server: server.to_owned(),
        reason,
    };
    let challenge = challenge_of(url).await;
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let resolution = manager
        .resolve_metadata_from_challenge(challenge.as_deref())
        .await
        .map_err(|e| failed(format!("discovering its authorization server failed: {e}")))?;
    manager.set_metadata(resolution.metadata);
    manager.set_credential_store(sign_ins.store_for(server));
    let mut request =
        AuthorizationRequest::new(redirect_uri.to_owned()).with_client_name("SmallEBot");
    if let McpAuth::OAuth {
        client_id, scopes, ..
    } = auth
    {
        if let Some(client_id) = client_id {
            request = request.with_preregistered_client(client_id.clone());
        }
        if !scopes.is_empty() {
            request = request.with_scopes(scopes.iter().cloned());
        }
    }
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge);
    }
    AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| failed(e.to_string()))
}

/// What [`logout`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignedOut {
    /// There was no sign-in to forget.
    NotSignedIn,
    /// Its tokens were revoked at the authorization server and the sign-in forgotten.
    Revoked,
    /// The sign-in was forgotten, but revoking its tokens failed (why).
    NotRevoked(String),
}

/// Revokes the person's sign-in to `settings`' server at its authorization server
/// (RFC 7009, refresh token first) and forgets it; what happened.
///
/// # Errors
/// The server does not use OAuth, or the store failed.
pub async fn logout(
    settings: &McpServerSettings,
    sign_ins: &McpSignIns,
) -> Result<SignedOut, McpAuthError> {
    oauth_server(settings)?;
    if sign_ins.load(&settings.name).await?.is_none() {
        return Ok(SignedOut::NotSignedIn);
    }
    let revoked = crate::revoke::revoke(Some(settings), sign_ins, &settings.name).await;
    if !sign_ins.forget(&settings.name).await? {
        return Ok(SignedOut::NotSignedIn);
    }
    Ok(match revoked {
        Ok(()) => SignedOut::Revoked,
        Err(reason) => SignedOut::NotRevoked(reason),
    })
}

/// The `WWW-Authenticate` of the server's `401` to a request without a token, if it
/// answers so (discovery then starts from the metadata it names).
async fn challenge_of(url: &str) -> Option<String> {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "smallebot", "version": env!("CARGO_PKG_VERSION")}}
    });
    let response = reqwest::Client::new()
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .send()
        .await
        .ok()?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        return None;
    }
    response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Waits for the browser's request to `/callback` on `listener` and answers it; its
/// path and query. Other requests (a favicon) get a 404.
async fn redirect_path(listener: &TcpListener) -> std::io::Result<String> {
    loop {
        let (mut stream, _) = listener.accept().await?;
        let mut buffer = Vec::new();
        let mut chunk = [0_u8; 1024];
        while !buffer.windows(4).any(|w| w == b"\r\n\r\n") && buffer.len() < MAX_REDIRECT_REQUEST {
            let read = stream.read(&mut chunk).await?;
            if read == 0 {
                break;
            }
            buffer.extend_from_slice(&chunk[..read]);
        }
        let head = String::from_utf8_lossy(&buffer);
        let path = head
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("GET "))
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_default()
            .to_owned();
        if path.starts_with("/callback?") {
            let answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n\
                 content-length: {}\r\nconnection: close\r\n\r\n{DONE_PAGE}",
                DONE_PAGE.len()
            );
            stream.write_all(answer.as_bytes()).await?;
            let _ = stream.shutdown().await;
            return Ok(path);
        }
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            .await;
    }
}
