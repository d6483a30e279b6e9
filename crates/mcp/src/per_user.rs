//! Per-user servers (mcp.json's `perUser`) on a shared `serve`: each web user's view of
//! the servers ([`McpServers::for_user`]) shares every other server's connection and
//! has its own connection to each per-user server, signed in with that user's sealed
//! sign-in. A per-user server the user has not connected offers no tools, and a call
//! to one of its tools says to connect first.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use crate::connection::McpConnection;
use crate::credentials::McpSignIns;
use crate::login::{SignInState, sign_in_state};
use crate::names::tool_name;
use crate::start::McpServers;

/// What a call to a tool of a per-user server the user has not connected answers.
pub(crate) fn connect_first(server: &str) -> String {
    format!(
        "the MCP server '{server}' is connected by each user with their own account, and \
         you have not connected it (or your sign-in ended): connect first — press Connect \
         next to '{server}' in the page's MCP servers dialog — then ask again"
    )
}

impl McpServers {
    /// `sign_ins`' user's view: the same connections for every server but the per-user
    /// ones, which get a connection of the user's own, started now when the user is
    /// signed in (a user who is not is no warning: the server waits for Connect).
    pub async fn for_user(&self, sign_ins: &McpSignIns) -> Self {
        let generation = Arc::new(AtomicU64::new(0));
        let mut own = Vec::new();
        let connections = self
            .connections
            .iter()
            .map(|(connection, enabled)| {
                if !connection.settings().per_user() {
                    return (Arc::clone(connection), *enabled);
                }
                let mine = Arc::new(McpConnection::new(
                    connection.settings().clone(),
                    None,
                    Arc::clone(&generation),
                    Some(sign_ins.clone()),
                    Arc::clone(&self.answerers),
                ));
                if *enabled {
                    own.push(Arc::clone(&mine));
                }
                (mine, *enabled)
            })
            .collect();
        let mut warnings = self.warnings.clone();
        let started = futures::future::join_all(own.iter().map(|c| async move {
            match sign_in_state(c.settings(), sign_ins).await {
                Ok(SignInState::SignedIn) => c.start().await.err(),
                _ => None,
            }
        }))
        .await;
        for (connection, failure) in own.iter().zip(started) {
            if let Some(reason) = failure {
                warnings.push(format!(
                    "MCP server '{}' is not available, its tools are left out: {reason}",
                    connection.settings().name
                ));
            }
        }
        Self {
            connections,
            // Who answers a server's questions and sampling is the shared servers'
            // (`serve`: the page of the call's conversation; the conversation's model).
            answerers: Arc::clone(&self.answerers),
            generation,
            warnings,
            shared_generation: Some(Arc::clone(&self.generation)),
        }
    }

    /// Why the tool `name` cannot be called, when it belongs to a per-user server of
    /// this user's view that is not connected: connect first.
    #[must_use]
    pub fn unavailable(&self, name: &str) -> Option<String> {
        self.shared_generation.as_ref()?;
        self.enabled()
            .filter(|c| c.settings().per_user() && c.tools().is_empty())
            .map(|c| &c.settings().name)
            .find(|server| name.starts_with(&tool_name(server, "")))
            .map(|server| connect_first(server))
    }

    /// Connects the enabled server `name` again (after a sign-in), listing its tools.
    ///
    /// # Errors
    /// No such enabled server, or why it could not start.
    pub async fn reconnect(&self, name: &str) -> Result<usize, String> {
        let connection = self.enabled_named(name).map_err(|e| e.to_string())?;
        connection.start().await.map(|tools| tools.len())
    }

    /// Whether this is one web user's view ([`McpServers::for_user`]).
    #[must_use]
    pub fn is_user_view(&self) -> bool {
        self.shared_generation.is_some()
    }

    /// Closes the connections of this user's view's own (per-user) servers; the shared
    /// ones are left to [`McpServers::shutdown`] of the shared servers.
    pub async fn shutdown_own(&self) {
        for (connection, _) in &self.connections {
            if connection.settings().per_user() {
                connection.stop().await;
            }
        }
    }
}
