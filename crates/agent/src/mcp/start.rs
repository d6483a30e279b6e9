//! Starting every enabled server of mcp.json in parallel and collecting their tools.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::connection::McpConnection;
use super::tool::McpTool;
use crate::config::McpSettings;
use crate::tools::{CommandConfirmer, Tool};

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
}

/// The configured servers and their tools.
pub struct McpServers {
    connections: Vec<(Arc<McpConnection>, bool)>,
    tools: Vec<Arc<McpTool>>,
    warnings: Vec<String>,
}

impl McpServers {
    /// Starts every enabled server at once, each within its startup timeout. A server
    /// that fails adds a warning (which server, why, the tail of its standard error)
    /// and no tools. With `helper` (a binary whose `main` calls
    /// [`crate::sandbox::run_helper_if_requested`] first), child processes are started
    /// through it and die with this process however it ends.
    ///
    /// # Errors
    /// [`McpStartError::Collision`] when two tools would get the same name.
    pub async fn start(
        settings: &McpSettings,
        confirmer: Arc<dyn CommandConfirmer>,
        helper: Option<PathBuf>,
    ) -> Result<Self, McpStartError> {
        let connections: Vec<(Arc<McpConnection>, bool)> = settings
            .servers
            .iter()
            .map(|s| {
                (
                    Arc::new(McpConnection::new(s.clone(), helper.clone())),
                    s.enabled,
                )
            })
            .collect();
        let started =
            futures::future::join_all(connections.iter().filter(|(_, enabled)| *enabled).map(
                |(connection, _)| async move { (Arc::clone(connection), connection.start().await) },
            ))
            .await;
        let mut tools = Vec::new();
        let mut warnings = Vec::new();
        let mut names: HashMap<String, String> = HashMap::new();
        for (connection, result) in started {
            let server = connection.settings().name.clone();
            match result {
                Ok(listed) => {
                    for listed_tool in &listed {
                        let tool = McpTool::new(
                            Arc::clone(&connection),
                            listed_tool,
                            Arc::clone(&confirmer),
                        );
                        let full = format!("{server}/{}", tool.remote_name());
                        if let Some(first) = names.insert(tool.name().to_owned(), full.clone()) {
                            for (connection, _) in &connections {
                                connection.stop().await;
                            }
                            return Err(McpStartError::Collision {
                                name: tool.name().to_owned(),
                                first,
                                second: full,
                            });
                        }
                        tools.push(Arc::new(tool));
                    }
                }
                Err(reason) => warnings.push(format!(
                    "MCP server '{server}' is not available, its tools are left out: {reason}"
                )),
            }
        }
        Ok(Self {
            connections,
            tools,
            warnings,
        })
    }

    /// No servers.
    #[must_use]
    pub fn none() -> Self {
        Self {
            connections: Vec::new(),
            tools: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The tools, for the registry.
    #[must_use]
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools
            .iter()
            .map(|t| Arc::clone(t) as Arc<dyn Tool>)
            .collect()
    }

    /// The tools with their server, name and description.
    #[must_use]
    pub fn tool_list(&self) -> Vec<(String, String, String)> {
        self.tools
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
            out.push(McpServerStatus {
                tools: self.tools.iter().filter(|t| t.server() == name).count(),
                name,
                enabled: *enabled,
                running: connection.is_running().await,
                last_error: connection.last_error(),
            });
        }
        out
    }

    /// Stops every server (child processes end).
    pub async fn stop(&self) {
        for (connection, _) in &self.connections {
            connection.stop().await;
        }
    }
}
