//! One MCP server: connecting (a child process over stdio, or streamable HTTP) within
//! its startup timeout, listing its tools, calling one within the tool timeout, the
//! tail of its standard error for messages, a restart on the next call after it
//! stopped, and a shutdown that kills a stdio server's whole process group.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RoleClient, ServiceError};
use serde_json::{Map, Value};

use super::client::{ListWatcher, ToolList};
use super::connect::{self, Live, StdioServer};
use crate::settings::{McpServerSettings, McpTransport};

/// Bytes in a MiB, for messages.
const MIB: usize = 1024 * 1024;

/// One configured server and its connection, if any.
pub(crate) struct McpConnection {
    settings: McpServerSettings,
    list: Arc<ToolList>,
    /// The helper binary that ties a child process to this one (see
    /// [`smallebot_sandbox::tied_to_this_process`]); `None` starts it directly.
    helper: Option<PathBuf>,
    client: tokio::sync::Mutex<Option<Live>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    last_error: Mutex<Option<String>>,
    /// Set when the server sent a message over its limit (the connection then ends).
    oversized: Arc<AtomicBool>,
    /// Set by [`McpConnection::stop`]: no call starts the server again.
    stopped: AtomicBool,
    /// Whether the server declared resources when it last connected.
    resources: AtomicBool,
}

impl McpConnection {
    /// A server not yet started.
    pub(crate) fn new(
        settings: McpServerSettings,
        helper: Option<PathBuf>,
        generation: Arc<AtomicU64>,
    ) -> Self {
        Self {
            settings,
            list: Arc::new(ToolList::new(generation)),
            helper,
            client: tokio::sync::Mutex::new(None),
            stderr: Arc::default(),
            last_error: Mutex::new(None),
            oversized: Arc::default(),
            stopped: AtomicBool::new(false),
            resources: AtomicBool::new(false),
        }
    }

    /// Its settings.
    pub(crate) fn settings(&self) -> &McpServerSettings {
        &self.settings
    }

    /// Its tools as last listed (none before it started).
    pub(crate) fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.list.get()
    }

    /// Whether the server declared resources when it last connected.
    pub(crate) fn offers_resources(&self) -> bool {
        self.resources.load(Ordering::SeqCst)
    }

    /// The last thing that went wrong, if anything.
    pub(crate) fn last_error(&self) -> Option<String> {
        self.last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether it is connected now.
    pub(crate) async fn is_running(&self) -> bool {
        self.client
            .lock()
            .await
            .as_ref()
            .is_some_and(|live| !live.client.is_closed())
    }

    /// Connects and lists the tools, within the startup timeout.
    ///
    /// # Errors
    /// Why it could not start (with the tail of its standard error).
    pub(crate) async fn start(&self) -> Result<Vec<rmcp::model::Tool>, String> {
        let mut slot = self.client.lock().await;
        let started = tokio::time::timeout(self.settings.startup_timeout, async {
            let live = self.connect().await?;
            let tools = live
                .client
                .peer()
                .list_all_tools()
                .await
                .map_err(|e| format!("listing its tools failed: {e}"))?;
            Ok::<_, String>((live, tools))
        })
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "it did not start within {} s (startupTimeoutSeconds)",
                self.settings.startup_timeout.as_secs()
            ))
        });
        match started {
            Ok((live, tools)) => {
                let declared = live
                    .client
                    .peer_info()
                    .is_some_and(|info| info.capabilities.resources.is_some());
                self.resources.store(declared, Ordering::SeqCst);
                *slot = Some(live);
                self.list.set(tools.clone());
                Ok(tools)
            }
            Err(reason) => Err(self.failed(reason)),
        }
    }

    /// Calls `tool` with `arguments`, restarting the server first when it stopped.
    /// Returns the result as JSON.
    ///
    /// # Errors
    /// What went wrong, said for the model.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
    ) -> Result<Value, String> {
        let name = &self.settings.name;
        let peer = self.peer().await?;
        let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let timeout = self.settings.tool_timeout;
        match tokio::time::timeout(timeout, peer.call_tool(request)).await {
            Err(_) => Err(format!(
                "the MCP server '{name}' did not answer within {} s (toolTimeoutSeconds); \
                 the call may still be running there",
                timeout.as_secs()
            )),
            Ok(Ok(result)) => serde_json::to_value(result).map_err(|e| {
                format!("the MCP server '{name}' sent a result that cannot be read: {e}")
            }),
            Ok(Err(error)) => {
                let stopped = matches!(
                    error,
                    ServiceError::TransportClosed | ServiceError::TransportSend(_)
                ) || self
                    .client
                    .lock()
                    .await
                    .as_ref()
                    .is_none_or(|live| live.client.is_closed());
                let reason = if self.oversized.load(Ordering::SeqCst) {
                    self.close(Duration::from_millis(200)).await;
                    format!(
                        "the MCP server '{name}' sent a result larger than the limit of {} MiB \
                         (maxResultMegabytes in mcp.json); it was not read. Ask the tool for \
                         less (a narrower query, a page), or raise the limit; the server is \
                         restarted on the next call",
                        self.settings.max_message_bytes / MIB
                    )
                } else if stopped {
                    // Dropped: the next call starts it again.
                    self.close(Duration::from_millis(200)).await;
                    // Let its last words reach the standard error tail.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    format!(
                        "the MCP server '{name}' stopped during the call ({error}); it is \
                         restarted on the next call"
                    )
                } else {
                    format!("the MCP server '{name}' answered with an error: {error}")
                };
                Err(self.failed(reason))
            }
        }
    }

    /// The connected client's peer, restarting the server first when it stopped.
    ///
    /// # Errors
    /// Why the server is not running, said for the model.
    pub(crate) async fn peer(&self) -> Result<Peer<RoleClient>, String> {
        let name = &self.settings.name;
        let mut slot = self.client.lock().await;
        if self.stopped.load(Ordering::SeqCst) {
            return Err(format!(
                "the MCP server '{name}' was stopped: SmallEBot is ending"
            ));
        }
        if slot.as_ref().is_none_or(|live| live.client.is_closed()) {
            let restarted = tokio::time::timeout(self.settings.startup_timeout, self.connect())
                .await
                .unwrap_or_else(|_| Err("it did not start in time".to_owned()));
            match restarted {
                Ok(live) => *slot = Some(live),
                Err(reason) => {
                    return Err(format!(
                        "the MCP server '{name}' is not running and could not be restarted: {}",
                        self.failed(reason)
                    ));
                }
            }
        }
        match slot.as_ref() {
            Some(live) => Ok(live.client.peer().clone()),
            None => Err(format!("the MCP server '{name}' is not running")),
        }
    }

    /// Closes the connection for good: a stdio server's whole process group is killed,
    /// and no later call starts it again. Idempotent.
    pub(crate) async fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.close(Duration::from_millis(500)).await;
    }

    /// Closes the connection, giving the client `grace` to end, then kills a stdio
    /// server's process group (a wrapper, the server, and what it started).
    async fn close(&self, grace: Duration) {
        let Some(mut live) = self.client.lock().await.take() else {
            return;
        };
        let _ = live.client.close_with_timeout(grace).await;
        if let Some(process) = live.process.as_mut() {
            process.kill().await;
        }
    }

    /// A new connection (nothing listed yet).
    async fn connect(&self) -> Result<Live, String> {
        let limit = self.settings.max_message_bytes;
        self.oversized.store(false, Ordering::SeqCst);
        match &self.settings.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let server = StdioServer {
                    command,
                    args,
                    env,
                    cwd: cwd.as_ref(),
                    helper: self.helper.as_ref(),
                    max_message_bytes: limit,
                };
                connect::stdio(
                    &server,
                    self.watcher(),
                    &self.stderr,
                    Arc::clone(&self.oversized),
                )
                .await
            }
            McpTransport::Http { url, headers } => {
                connect::http(
                    url,
                    headers,
                    limit,
                    self.watcher(),
                    Arc::clone(&self.oversized),
                )
                .await
            }
        }
    }

    /// The handler of a new connection.
    fn watcher(&self) -> ListWatcher {
        ListWatcher::new(Arc::clone(&self.list))
    }

    /// Records `reason` (with the tail of standard error) as the last error and
    /// returns the full message.
    fn failed(&self, reason: String) -> String {
        let tail: Vec<String> = self
            .stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .rev()
            .take(5)
            .rev()
            .cloned()
            .collect();
        let message = if tail.is_empty() {
            reason
        } else {
            format!(
                "{reason}; its standard error ended with: {}",
                tail.join(" | ")
            )
        };
        *self
            .last_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(message.clone());
        message
    }
}
