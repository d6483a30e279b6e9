//! Starting every enabled server of mcp.json in parallel and collecting their tools.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use smallebot_application::ports::{ChatModel, Elicitor};

use super::asking::Answerers;
use super::catalog::McpRequestError;
use super::connection::McpConnection;
use super::names::tool_name;
use super::tool::McpTool;
use crate::credentials::McpSignIns;
use crate::login::{SignInState, sign_in_state};
use crate::settings::McpSettings;

/// Why the MCP tools cannot be used as configured.
#[derive(Debug, thiserror::Error)]
pub enum McpStartError {
    /// Two tools get the same name once sanitized.
    #[error(
        "two MCP tools would both be called '{name}': '{first}' and '{second}'; rename a \
         server in mcp.json or disable one (\"enabled\": false)"
    )]
    Collision {
        /// The clashing name.
        name: String,
        /// One tool, as `server/tool`.
        first: String,
        /// The other.
        second: String,
    },
}

/// A server's state, for `smallebot mcp list` and `/mcp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerStatus {
    /// Its name.
    pub name: String,
    /// `enabled` in mcp.json.
    pub enabled: bool,
    /// Connected now.
    pub running: bool,
    /// Tools it offers.
    pub tools: usize,
    /// The last thing that went wrong.
    pub last_error: Option<String>,
    /// The person's sign-in, for a server signed in to with OAuth (`None` for others,
    /// or when it cannot be read: the last error says why).
    pub sign_in: Option<SignInState>,
}

/// The configured servers and their tools, which follow the lists the servers
/// announce as changed ([`McpServers::generation`] says when).
pub struct McpServers {
    pub(crate) connections: Vec<(Arc<McpConnection>, bool)>,
    pub(crate) answerers: Arc<Answerers>,
    pub(crate) generation: Arc<AtomicU64>,
    pub(crate) warnings: Vec<String>,
    /// For one web user's view ([`McpServers::for_user`]): the shared servers'
    /// generation, added to this view's own.
    pub(crate) shared_generation: Option<Arc<AtomicU64>>,
}

impl McpServers {
    /// Starts every enabled server at once, each within its startup timeout. A server
    /// that fails adds a warning (which server, why, the tail of its standard error)
    /// and no tools. With `helper` (a binary whose `main` calls
    /// [`smallebot_sandbox::run_helper_if_requested`] first), child processes are started
    /// through it and die with this process however it ends.
    ///
    /// # Errors
    /// [`McpStartError::Collision`] when two tools would get the same name.
    pub async fn start(
        settings: &McpSettings,
        helper: Option<PathBuf>,
    ) -> Result<Self, McpStartError> {
        Self::start_signed_in(settings, helper, None).await
    }

    /// As [`McpServers::start`], with the person's sign-ins to OAuth servers
    /// (`"auth": {"type": "oauth"}`); without them such a server is not available.
    ///
    /// # Errors
    /// As [`McpServers::start`].
    pub async fn start_signed_in(
        settings: &McpSettings,
        helper: Option<PathBuf>,
        sign_ins: Option<McpSignIns>,
    ) -> Result<Self, McpStartError> {
        let generation = Arc::new(AtomicU64::new(0));
        let answerers = Arc::new(Answerers::default());
        let connections: Vec<(Arc<McpConnection>, bool)> = settings
            .servers
            .iter()
            .map(|s| {
                let connection = McpConnection::new(
                    s.clone(),
                    helper.clone(),
                    Arc::clone(&generation),
                    sign_ins.clone(),
                    Arc::clone(&answerers),
                );
                (Arc::new(connection), s.enabled)
            })
            .collect();
        let started =
            futures::future::join_all(connections.iter().filter(|(_, enabled)| *enabled).map(
                |(connection, _)| async move { (Arc::clone(connection), connection.start().await) },
            ))
            .await;
        let mut warnings = Vec::new();
        let mut names: HashMap<String, String> = HashMap::new();
        for (connection, result) in started {
            let server = connection.settings().name.clone();
            match result {
                Ok(listed) => {
                    for listed_tool in &listed {
                        let name = tool_name(&server, &listed_tool.name);
                        let full = format!("{server}/{}", listed_tool.name);
                        if let Some(first) = names.insert(name.clone(), full.clone()) {
                            for (connection, _) in &connections {
                                connection.stop().await;
                            }
                            return Err(McpStartError::Collision {
                                name,
                                first,
                                second: full,
                            });
                        }
                    }
                }
                Err(reason) => warnings.push(format!(
                    "MCP server '{server}' is not available, its tools are left out: {reason}"
                )),
            }
        }
        Ok(Self {
            connections,
            answerers,
            generation,
            warnings,
            shared_generation: None,
        })
    }

    /// No servers.
    #[must_use]
    pub fn none() -> Self {
        Self {
            connections: Vec::new(),
            answerers: Arc::default(),
            generation: Arc::default(),
            warnings: Vec::new(),
            shared_generation: None,
        }
    }

    /// Who asks the person a server's questions during a call from now on (the chat
    /// REPL, the web app); until then nobody does and every question is declined.
    pub fn set_elicitor(&self, elicitor: Arc<dyn Elicitor>) {
        self.answerers.set_elicitor(elicitor);
    }

    /// The model that answers the sampling requests of servers with `"sampling":
    /// true` from now on (the conversation's model, billed to the asking call's turn);
    /// until then they are refused.
    pub fn set_sampler(&self, model: Arc<dyn ChatModel>) {
        self.answerers.set_sampler(model);
    }

    /// The tools now: every started server's, as last listed. A name that a changed
    /// list would give twice keeps its first tool (and is logged).
    #[must_use]
    pub fn mcp_tools(&self) -> Vec<Arc<McpTool>> {
        let mut seen = HashSet::new();
        let mut tools = Vec::new();
        for (connection, _) in &self.connections {
            for listed in connection.tools() {
                let tool = McpTool::new(Arc::clone(connection), &listed);
                if seen.insert(tool.name().to_owned()) {
                    tools.push(Arc::new(tool));
                } else {
                    tracing::warn!(
                        tool = tool.name(),
                        "an MCP tool name is given twice; the first is kept"
                    );
                }
            }
        }
        tools
    }

    /// The tools with their server, name and description.
    #[must_use]
    pub fn tool_list(&self) -> Vec<(String, String, String)> {
        self.mcp_tools()
            .iter()
            .map(|t| {
                let schema = t.schema();
                (t.server().to_owned(), schema.name, schema.description)
            })
            .collect()
    }

    /// What went wrong at start, one line per server.
    #[must_use]
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Each configured server's state.
    pub async fn status(&self) -> Vec<McpServerStatus> {
        let mut out = Vec::with_capacity(self.connections.len());
        for (connection, enabled) in &self.connections {
            let name = connection.settings().name.clone();
            let sign_in = match connection.sign_ins() {
                Some(sign_ins) if connection.settings().oauth().is_some() => {
                    sign_in_state(connection.settings(), &sign_ins).await.ok()
                }
                _ => None,
            };
            out.push(McpServerStatus {
                sign_in,
                tools: connection.tools().len(),
                name,
                enabled: *enabled,
                running: connection.is_running().await,
                last_error: connection.last_error(),
            });
        }
        out
    }

    /// The enabled servers' connections.
    pub(crate) fn enabled(&self) -> impl Iterator<Item = &Arc<McpConnection>> {
        self.connections
            .iter()
            .filter(|(_, enabled)| *enabled)
            .map(|(connection, _)| connection)
    }

    /// The enabled server named `server`.
    ///
    /// # Errors
    /// [`McpRequestError::UnknownServer`] naming the enabled ones.
    pub(crate) fn enabled_named(
        &self,
        server: &str,
    ) -> Result<&Arc<McpConnection>, McpRequestError> {
        self.enabled()
            .find(|c| c.settings().name == server)
            .ok_or_else(|| McpRequestError::UnknownServer {
                server: server.to_owned(),
                known: self
                    .enabled()
                    .map(|c| c.settings().name.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// Gives the OAuth servers the person's sign-ins and starts those that waited for
    /// them; what went wrong, one line per server that could not start. Without
    /// `per_user_too`, `perUser` servers are left alone: on a `serve` where users sign
    /// in each one connects them with their own sign-in, never the operator's.
    pub async fn use_sign_ins(&self, sign_ins: &McpSignIns, per_user_too: bool) -> Vec<String> {
        let mut warnings = Vec::new();
        for (connection, enabled) in &self.connections {
            let settings = connection.settings();
            if settings.oauth().is_none() || (settings.per_user() && !per_user_too) {
                continue;
            }
            connection.set_sign_ins(sign_ins.clone());
            if *enabled && let Err(reason) = connection.start().await {
                warnings.push(format!(
                    "MCP server '{}' is not available, its tools are left out: {reason}",
                    settings.name
                ));
            }
        }
        warnings
    }

    /// The settings of the configured server `name`, if any.
    #[must_use]
    pub fn settings_of(&self, name: &str) -> Option<&crate::McpServerSettings> {
        self.connections
            .iter()
            .map(|(c, _)| c.settings())
            .find(|s| s.name == name)
    }

    /// A number that changes whenever the servers' tools change (a server announced a
    /// new list, or started or stopped).
    #[must_use]
    pub fn generation(&self) -> u64 {
        let shared = self
            .shared_generation
            .as_ref()
            .map_or(0, |g| g.load(Ordering::SeqCst));
        self.generation.load(Ordering::SeqCst).wrapping_add(shared)
    }

    /// Stops every server for good: each connection is closed and each stdio server's
    /// whole process group (a wrapper such as `bash -c`, `npx` or `uvx`, the server, and
    /// anything it started) is killed, even a server stuck in a call; no later call
    /// starts one again. Idempotent: the host calls it on every way out (the end of a
    /// command, a signal). Dropping the servers kills the process groups too.
    pub async fn shutdown(&self) {
        for (connection, _) in &self.connections {
            connection.stop().await;
        }
    }
}
