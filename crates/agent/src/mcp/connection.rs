//! One MCP server: connecting (a child process over stdio, or streamable HTTP) within
//! its startup timeout, listing its tools, calling one within the tool timeout, the
//! tail of its standard error for messages, and a restart on the next call after it
//! stopped.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{NotificationContext, RoleClient, RunningService, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::config::{McpServerSettings, McpTransport};

/// Lines of a server's standard error kept for messages.
const STDERR_LINES: usize = 20;

/// How long a failed handshake waits for the server's standard error to end.
const STDERR_GRACE: Duration = Duration::from_millis(500);

/// A connected client.
type Client = RunningService<RoleClient, ListWatcher>;

/// A server's tools as last listed, and the counter that moves when any server's list
/// changes (shared by all the servers of one [`super::McpServers`]).
#[derive(Default)]
pub(crate) struct ToolList {
    tools: Mutex<Vec<rmcp::model::Tool>>,
    generation: Arc<AtomicU64>,
}

impl ToolList {
    /// An empty list counting changes on `generation`.
    pub(crate) fn new(generation: Arc<AtomicU64>) -> Self {
        Self {
            tools: Mutex::default(),
            generation,
        }
    }

    /// The tools as last listed.
    pub(crate) fn get(&self) -> Vec<rmcp::model::Tool> {
        self.tools
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the list and counts a change.
    fn set(&self, tools: Vec<rmcp::model::Tool>) {
        *self.tools.lock().unwrap_or_else(PoisonError::into_inner) = tools;
        self.generation.fetch_add(1, Ordering::SeqCst);
    }
}

/// The client side's handler: re-lists the tools when the server announces a change.
pub(crate) struct ListWatcher {
    list: Arc<ToolList>,
}

impl rmcp::ClientHandler for ListWatcher {
    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let list = Arc::clone(&self.list);
        // Not inline: the handler must not wait on a request of its own connection.
        tokio::spawn(async move {
            match context.peer.list_all_tools().await {
                Ok(tools) => list.set(tools),
                Err(error) => {
                    tracing::warn!(%error, "could not list an MCP server's changed tools")
                }
            }
        });
    }
}

/// One configured server and its connection, if any.
pub(crate) struct McpConnection {
    settings: McpServerSettings,
    list: Arc<ToolList>,
    /// The helper binary that ties a child process to this one (see
    /// [`crate::sandbox::tied_to_this_process`]); `None` starts it directly.
    helper: Option<PathBuf>,
    client: tokio::sync::Mutex<Option<Client>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    last_error: Mutex<Option<String>>,
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
            .is_some_and(|client| !client.is_closed())
    }

    /// Connects and lists the tools, within the startup timeout.
    ///
    /// # Errors
    /// Why it could not start (with the tail of its standard error).
    pub(crate) async fn start(&self) -> Result<Vec<rmcp::model::Tool>, String> {
        let mut slot = self.client.lock().await;
        let started = tokio::time::timeout(self.settings.startup_timeout, async {
            let client = self.connect().await?;
            let tools = client
                .peer()
                .list_all_tools()
                .await
                .map_err(|e| format!("listing its tools failed: {e}"))?;
            Ok::<_, String>((client, tools))
        })
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "it did not start within {} s (startupTimeoutSeconds)",
                self.settings.startup_timeout.as_secs()
            ))
        });
        match started {
            Ok((client, tools)) => {
                *slot = Some(client);
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
        let peer = {
            let mut slot = self.client.lock().await;
            if slot.as_ref().is_none_or(Client::is_closed) {
                let restarted = tokio::time::timeout(self.settings.startup_timeout, self.connect())
                    .await
                    .unwrap_or_else(|_| Err("it did not start in time".to_owned()));
                match restarted {
                    Ok(client) => *slot = Some(client),
                    Err(reason) => {
                        return Err(format!(
                            "the MCP server '{name}' is not running and could not be restarted: {}",
                            self.failed(reason)
                        ));
                    }
                }
            }
            match slot.as_ref() {
                Some(client) => client.peer().clone(),
                None => return Err(format!("the MCP server '{name}' is not running")),
            }
        };
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
                    .is_none_or(Client::is_closed);
                let reason = if stopped {
                    // Dropped: the next call starts it again.
                    if let Some(mut client) = self.client.lock().await.take() {
                        let _ = client.close_with_timeout(Duration::from_millis(200)).await;
                    }
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

    /// Closes the connection (a child process is stopped).
    pub(crate) async fn stop(&self) {
        if let Some(mut client) = self.client.lock().await.take() {
            let _ = client.close_with_timeout(Duration::from_secs(2)).await;
        }
    }

    /// A new connection (nothing listed yet).
    async fn connect(&self) -> Result<Client, String> {
        match &self.settings.transport {
            McpTransport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut child = match &self.helper {
                    Some(helper) => crate::sandbox::tied_to_this_process(helper, command, args),
                    None => {
                        let mut child = tokio::process::Command::new(command);
                        child.args(args);
                        child
                    }
                };
                child.envs(env).kill_on_drop(true);
                if let Some(cwd) = cwd {
                    child.current_dir(cwd);
                }
                let (transport, stderr) = TokioChildProcess::builder(child)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|e| format!("could not start '{command}': {e}"))?;
                let mut reader = None;
                if let Some(stderr) = stderr {
                    let tail = Arc::clone(&self.stderr);
                    reader = Some(tokio::spawn(async move {
                        let mut lines = BufReader::new(stderr).lines();
                        while let Ok(Some(line)) = lines.next_line().await {
                            let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
                            if tail.len() == STDERR_LINES {
                                tail.pop_front();
                            }
                            tail.push_back(line);
                        }
                    }));
                }
                match self.watcher().serve(transport).await {
                    Ok(client) => Ok(client),
                    Err(e) => {
                        // A child that failed to start (say its program is missing) has
                        // exited or is exiting: give its standard error a moment to end,
                        // so the reason it printed is in the error, not only "broken pipe".
                        if let Some(reader) = reader {
                            let _ = tokio::time::timeout(STDERR_GRACE, reader).await;
                        }
                        Err(format!("the MCP handshake failed: {e}"))
                    }
                }
            }
            McpTransport::Http { url, headers } => {
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                let mut custom = HashMap::new();
                for (name, value) in headers {
                    if name.eq_ignore_ascii_case("authorization")
                        && let Some(token) = value.strip_prefix("Bearer ")
                    {
                        config = config.auth_header(token.to_owned());
                        continue;
                    }
                    let header = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                        .map_err(|e| format!("header '{name}' is not valid: {e}"))?;
                    let value = reqwest::header::HeaderValue::from_str(value)
                        .map_err(|e| format!("the value of header '{name}' is not valid: {e}"))?;
                    custom.insert(header, value);
                }
                let transport =
                    StreamableHttpClientTransport::from_config(config.custom_headers(custom));
                self.watcher()
                    .serve(transport)
                    .await
                    .map_err(|e| format!("connecting to {url} failed: {e}"))
            }
        }
    }

    /// The handler of a new connection.
    fn watcher(&self) -> ListWatcher {
        ListWatcher {
            list: Arc::clone(&self.list),
        }
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
