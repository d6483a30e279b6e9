//! The MCP servers of a `serve`'s users ([`McpUsers`]): each web user's view (their own
//! connection to each per-user server), and connecting a server from the page — the
//! authorization URL (PKCE, `resource`) coming back to the `serve` itself, whose
//! `state` names the user and server the sign-in is for.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use rmcp::transport::auth::AuthorizationSession;
use smallebot_application::ports::{McpConnectError, UserMcpServers};
use smallebot_protocol::api::{McpConnection, McpServerList, McpServerRow};

use crate::credentials::McpSignIns;
use crate::login::{SignInState, authorization_session};
use crate::start::{McpServerStatus, McpServers};

/// How long a sign-in started on the page waits for its redirect.
const PENDING_FOR: Duration = Duration::from_secs(600);

/// The most sign-ins under way at once (older ones are dropped first).
const MOST_PENDING: usize = 256;

/// A sign-in started on the page, waiting for the redirect back.
struct Pending {
    user: String,
    /// The digest of the secret the browser that started it holds.
    browser: String,
    server: String,
    session: AuthorizationSession,
    started: Instant,
}

/// The servers of every web user of one `serve`.
pub struct McpUsers {
    shared: Arc<McpServers>,
    sign_ins: McpSignIns,
    per_user: bool,
    views: tokio::sync::Mutex<HashMap<String, Arc<McpServers>>>,
    pending: Mutex<HashMap<String, Pending>>,
}

impl McpUsers {
    /// The users of `shared`, their sign-ins kept where `sign_ins` keeps them (its
    /// user is replaced by each one's). With `per_user` (several users sign in) each
    /// user gets a view of their own ([`McpServers::for_user`]); without (one person)
    /// every request sees `shared`, signed in as that person.
    #[must_use]
    pub fn new(shared: Arc<McpServers>, sign_ins: McpSignIns, per_user: bool) -> Self {
        Self {
            shared,
            sign_ins,
            per_user,
            views: tokio::sync::Mutex::default(),
            pending: Mutex::default(),
        }
    }

    /// `user`'s servers: their own view (made on first use) when users sign in.
    pub async fn servers_of(&self, user: &str) -> Arc<McpServers> {
        if !self.per_user {
            return Arc::clone(&self.shared);
        }
        if let Some(view) = self.views.lock().await.get(user) {
            return Arc::clone(view);
        }
        // Connected without the lock: one user's slow server never holds up another's
        // first request (two first requests at once: the first view made is kept).
        let view = Arc::new(self.shared.for_user(&self.sign_ins.for_user(user)).await);
        let mut views = self.views.lock().await;
        Arc::clone(views.entry(user.to_owned()).or_insert(view))
    }

    /// Closes every user's own connections (the shared servers are closed by their
    /// owner).
    pub async fn shutdown(&self) {
        for view in self.views.lock().await.values() {
            view.shutdown_own().await;
        }
    }

    /// The sign-ins of `user`.
    fn sign_ins_of(&self, user: &str) -> McpSignIns {
        self.sign_ins.for_user(user)
    }

    /// Keeps `pending` under `state`, dropping sign-ins too old to finish.
    fn keep(&self, state: String, pending: Pending) {
        let mut map = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
        map.retain(|_, p| p.started.elapsed() < PENDING_FOR);
        if map.len() >= MOST_PENDING
            && let Some(oldest) = map
                .iter()
                .min_by_key(|(_, p)| p.started)
                .map(|(k, _)| k.clone())
        {
            map.remove(&oldest);
        }
        map.insert(state, pending);
    }
}

/// One server's row as a user sees it.
fn row(status: McpServerStatus, per_user: bool, sign_in: bool) -> McpServerRow {
    let state = match status.sign_in {
        Some(SignInState::SignedIn) => McpConnection::SignedIn,
        Some(SignInState::Expired) => McpConnection::Expired,
        Some(SignInState::NotSignedIn) => McpConnection::NotConnected,
        None if status.running => McpConnection::Connected,
        None => McpConnection::NotConnected,
    };
    McpServerRow {
        name: status.name,
        per_user,
        sign_in,
        state,
        tools: status.tools,
    }
}

/// The `state` parameter of an authorization URL.
fn state_of(auth_url: &str) -> Option<String> {
    let url = reqwest::Url::parse(auth_url).ok()?;
    url.query_pairs()
        .find(|(name, _)| name == "state")
        .map(|(_, value)| value.into_owned())
}

#[async_trait]
impl UserMcpServers for McpUsers {
    async fn servers(&self, user: &str) -> McpServerList {
        let view = self.servers_of(user).await;
        let mut servers = Vec::new();
        for status in view.status().await {
            let Some(settings) = view.settings_of(&status.name) else {
                continue;
            };
            if !status.enabled {
                continue;
            }
            let per_user = settings.per_user();
            let sign_in = settings.oauth().is_some() && (per_user || !self.per_user);
            servers.push(row(status, per_user, sign_in));
        }
        McpServerList { servers }
    }

    async fn connect(
        &self,
        user: &str,
        server: &str,
        redirect_uri: &str,
        browser: &str,
    ) -> Result<String, McpConnectError> {
        let unknown = || McpConnectError::UnknownServer(server.to_owned());
        let settings = self
            .shared
            .settings_of(server)
            .filter(|_| self.shared.enabled_named(server).is_ok())
            .ok_or_else(unknown)?;
        if settings.oauth().is_none() {
            return Err(McpConnectError::NoSignIn(server.to_owned()));
        }
        if self.per_user && !settings.per_user() {
            return Err(McpConnectError::Shared(server.to_owned()));
        }
        let sign_ins = self.sign_ins_of(user);
        // Refuse before anything happens when the sign-in could not be stored.
        sign_ins
            .load(server)
            .await
            .map_err(|e| McpConnectError::Unavailable(e.to_string()))?;
        let session = authorization_session(settings, &sign_ins, redirect_uri)
            .await
            .map_err(|e| McpConnectError::Failed(e.to_string()))?;
        let url = session.auth_url.clone();
        let state = state_of(&url).ok_or_else(|| {
            McpConnectError::Failed(format!(
                "the authorization URL of MCP server '{server}' carries no state: {url}"
            ))
        })?;
        let pending = Pending {
            user: user.to_owned(),
            browser: browser.to_owned(),
            server: server.to_owned(),
            session,
            started: Instant::now(),
        };
        self.keep(state, pending);
        Ok(url)
    }

    async fn finish(
        &self,
        state: &str,
        code: &str,
        browser: Option<&str>,
    ) -> Result<(String, String), McpConnectError> {
        // Used once, whoever follows it: a link sent to someone else is spent.
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(state)
            .filter(|p| p.started.elapsed() < PENDING_FOR)
            .ok_or(McpConnectError::UnknownState)?;
        if browser != Some(pending.browser.as_str()) {
            return Err(McpConnectError::OtherBrowser);
        }
        let Pending {
            user,
            server,
            session,
            ..
        } = pending;
        session.handle_callback(code, state).await.map_err(|e| {
            McpConnectError::Failed(format!(
                "signing in to MCP server '{server}' failed: exchanging the code for a \
                 token failed: {e}"
            ))
        })?;
        let view = self.servers_of(&user).await;
        view.reconnect(&server).await.map_err(|reason| {
            McpConnectError::Failed(format!(
                "signed in to MCP server '{server}', but connecting failed: {reason}"
            ))
        })?;
        Ok((user, server))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_comes_from_the_authorization_url() {
        let cases = [
            (
                "http://a/authorize?client_id=c&state=s%2B1&x=y",
                Some("s+1"),
            ),
            ("http://a/authorize?client_id=c", None),
            ("not a url", None),
        ];
        for (url, state) in cases {
            assert_eq!(state_of(url).as_deref(), state, "{url}");
        }
    }

    #[test]
    fn rows_say_where_the_user_stands() {
        let status = |sign_in, running| McpServerStatus {
            name: "s".to_owned(),
            enabled: true,
            running,
            tools: 0,
            last_error: None,
            sign_in,
        };
        let cases = [
            (Some(SignInState::SignedIn), false, McpConnection::SignedIn),
            (Some(SignInState::Expired), true, McpConnection::Expired),
            (
                Some(SignInState::NotSignedIn),
                false,
                McpConnection::NotConnected,
            ),
            (None, true, McpConnection::Connected),
            (None, false, McpConnection::NotConnected),
        ];
        for (sign_in, running, state) in cases {
            assert_eq!(row(status(sign_in, running), true, true).state, state);
        }
    }
}
