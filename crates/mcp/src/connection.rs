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

use super::asking::{Answerers, AskClock, Asking, within};
use super::client::{Answering, ListWatcher, ToolList};
use super::connect::{self, Live, StdioServer};
use super::http_client::Watch;
use crate::credentials::McpSignIns;
use crate::oauth::sign_in_again;
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
    /// Set when the server sent a message over its limit (the connection then ends),
    /// or refused the sign-in.
    pub(crate) watch: Watch,
    /// Where the sign-ins of OAuth servers are kept (`None`: not known yet, and an
    /// OAuth server waits for them before it starts).
    sign_ins: Mutex<Option<McpSignIns>>,
    /// Set by [`McpConnection::stop`]: no call starts the server again.
    stopped: AtomicBool,
    /// Whether the server declared resources when it last connected.
    resources: AtomicBool,
    /// The calls running on it (its questions go to their person).
    asking: Arc<Asking>,
    /// Who answers its questions and sampling requests (shared by all the servers).
    answerers: Arc<Answerers>,
}

impl McpConnection {
    /// A server not yet started.
    pub(crate) fn new(
        settings: McpServerSettings,
        helper: Option<PathBuf>,
        generation: Arc<AtomicU64>,
        sign_ins: Option<McpSignIns>,
        answerers: Arc<Answerers>,
    ) -> Self {
        Self {
            settings,
            list: Arc::new(ToolList::new(generation)),
            helper,
            client: tokio::sync::Mutex::new(None),
            stderr: Arc::default(),
            last_error: Mutex::new(None),
            watch: Watch::default(),
            sign_ins: Mutex::new(sign_ins),
            stopped: AtomicBool::new(false),
            resources: AtomicBool::new(false),
            asking: Arc::default(),
            answerers,
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

    /// Sets where its sign-in is kept (for an OAuth server, which waits for it).
    pub(crate) fn set_sign_ins(&self, sign_ins: McpSignIns) {
        *self.sign_ins.lock().unwrap_or_else(PoisonError::into_inner) = Some(sign_ins);
    }

    /// Where its sign-in is kept, if known.
    pub(crate) fn sign_ins(&self) -> Option<McpSignIns> {
        self.sign_ins
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Connects and lists the tools, within the startup timeout. An OAuth server
    /// whose sign-ins are not known yet waits for them (no tools, no error).
    ///
    /// # Errors
    /// Why it could not start (with the tail of its standard error).
    pub(crate) async fn start(&self) -> Result<Vec<rmcp::model::Tool>, String> {
        if self.settings.oauth().is_some() && self.sign_ins().is_none() {
            return Ok(Vec::new());
        }
        let mut slot = self.client.lock().await;
        let started = tokio::time::timeout(self.settings.startup_timeout, async {
            let live = self.connect().await?;
            let tools = live.client.peer().list_all_tools().await.map_err(|e| {
                if self.watch.auth_lost.load(Ordering::SeqCst) {
                    sign_in_again(&self.settings.name)
                } else {
                    format!("listing its tools failed: {e}")
                }
            })?;
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
    /// Returns the result as JSON. The tool timeout does not run while `clock` says
    /// the person is being asked the server's question.
    ///
    /// # Errors
    /// What went wrong, said for the model.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        clock: &AskClock,
    ) -> Result<Value, String> {
        let name = &self.settings.name;
        let peer = self.peer().await?;
        let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let timeout = self.settings.tool_timeout;
        let mut answer = within(timeout, clock, peer.call_tool(request.clone())).await;
        if matches!(answer, Some(Err(_))) && self.machine_token_lost() {
            // A machine-to-machine server's token is not refreshed: a new one and a new
            // session, then the call once more.
            self.close(Duration::from_millis(200)).await;
            let live = tokio::time::timeout(self.settings.startup_timeout, self.connect())
                .await
                .unwrap_or_else(|_| Err("it did not start in time".to_owned()))
                .map_err(|reason| self.failed(reason))?;
            let peer = live.client.peer().clone();
            *self.client.lock().await = Some(live);
            answer = within(timeout, clock, peer.call_tool(request)).await;
        }
        match answer {
            None => Err(format!(
                "the MCP server '{name}' did not answer within {} s (toolTimeoutSeconds); \
                 the call may still be running there",
                timeout.as_secs()
            )),
            Some(Ok(result)) => serde_json::to_value(result).map_err(|e| {
                format!("the MCP server '{name}' sent a result that cannot be read: {e}")
            }),
            Some(Err(error)) => {
                let stopped = matches!(
                    error,
                    ServiceError::TransportClosed | ServiceError::TransportSend(_)
                ) || self
                    .client
                    .lock()
                    .await
                    .as_ref()
                    .is_none_or(|live| live.client.is_closed());
                let reason = if self.watch.auth_lost.load(Ordering::SeqCst) {
                    self.close(Duration::from_millis(200)).await;
                    sign_in_again(name)
                } else if self.watch.oversized.load(Ordering::SeqCst) {
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
        self.watch.oversized.store(false, Ordering::SeqCst);
        self.watch.auth_lost.store(false, Ordering::SeqCst);
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
                    Arc::clone(&self.watch.oversized),
                )
                .await
            }
            McpTransport::Http { url, headers, auth } => {
                let manager = self.manager(url, auth).await?;
                let connected =
                    connect::http(url, headers, limit, self.watcher(), &self.watch, manager).await;
                match connected {
                    Err(_) if self.watch.auth_lost.load(Ordering::SeqCst) => {
                        Err(sign_in_again(&self.settings.name))
                    }
                    other => other,
                }
            }
        }
    }

    /// The handler of a new connection.
    fn watcher(&self) -> ListWatcher {
        let answering = Answering {
            server: self.settings.name.clone(),
            asking: Arc::clone(&self.asking),
            answerers: Arc::clone(&self.answerers),
            elicitation_timeout: self.settings.elicitation_timeout,
            sampling: self.settings.sampling,
        };
        ListWatcher::new(Arc::clone(&self.list), answering)
    }

    /// The calls running on it, which its questions are about.
    pub(crate) fn asking(&self) -> &Arc<Asking> {
        &self.asking
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
