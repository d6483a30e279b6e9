//! Opening one connection: a child process over stdio (its own process group, an
//! environment of the allow-list plus the server's `env`, messages bounded by
//! `maxResultMegabytes`) or streamable HTTP (the same bound on its responses).

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::auth::{AuthClient, AuthorizationManager};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use smallebot_core::rules::child_env::{ChildEnvRule, child_environment};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::client::{Client, ListWatcher};
use super::http_client::{Watch, WatchedClient};
use super::process::ServerProcess;

/// Lines of a server's standard error kept for messages.
const STDERR_LINES: usize = 20;

/// How long a failed handshake waits for the server's standard error to end.
const STDERR_GRACE: Duration = Duration::from_millis(500);

/// A connected client and, for a stdio server, its process (killed with it).
pub(crate) struct Live {
    /// The client.
    pub(crate) client: Client,
    /// The process of a stdio server.
    pub(crate) process: Option<ServerProcess>,
}

/// How to start a stdio server.
pub(crate) struct StdioServer<'a> {
    /// The program.
    pub(crate) command: &'a str,
    /// Its arguments.
    pub(crate) args: &'a [String],
    /// Its own variables (mcp.json's `env`), on top of the base.
    pub(crate) env: &'a BTreeMap<String, String>,
    /// Where it starts.
    pub(crate) cwd: Option<&'a PathBuf>,
    /// The helper binary that ties it to this process, if any.
    pub(crate) helper: Option<&'a PathBuf>,
    /// The largest message it may send, in bytes.
    pub(crate) max_message_bytes: usize,
}

/// Starts a stdio server and shakes hands. Its standard error goes to `stderr_tail`;
/// a message over the limit sets `oversized`.
///
/// # Errors
/// Why it could not start or answer the handshake.
pub(crate) async fn stdio(
    server: &StdioServer<'_>,
    watcher: ListWatcher,
    stderr_tail: &Arc<Mutex<VecDeque<String>>>,
    oversized: Arc<AtomicBool>,
) -> Result<Live, String> {
    let command = server.command;
    let mut child = match server.helper {
        Some(helper) => smallebot_sandbox::tied_to_this_process(helper, command, server.args),
        None => {
            let mut child = tokio::process::Command::new(command);
            child.args(server.args);
            child
        }
    };
    // Nothing of the host's environment but the base, plus its own variables.
    let environment = child_environment(
        std::env::vars_os(),
        &ChildEnvRule {
            pass: &[],
            fixed: &[],
            set: server.env,
        },
    );
    child.env_clear().envs(environment);
    if let Some(cwd) = server.cwd {
        child.current_dir(cwd);
    }
    let (mut process, pipes) = ServerProcess::spawn(child, server.max_message_bytes, oversized)
        .map_err(|e| format!("could not start '{command}': {e}"))?;
    let mut reader = None;
    if let Some(stderr) = pipes.stderr {
        let tail = Arc::clone(stderr_tail);
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
    // Our reader enforces the limit (failing at once); the SDK's own cap, which drops
    // a long line and waits, must never bind first.
    let transport =
        AsyncRwTransport::new_client(pipes.stdout, pipes.stdin).with_max_line_length(usize::MAX);
    match watcher.serve(transport).await {
        Ok(client) => Ok(Live {
            client,
            process: Some(process),
        }),
        Err(e) => {
            // A child that failed to start (say its program is missing) has exited or
            // is exiting: give its standard error a moment to end, so the reason it
            // printed is in the error, not only "broken pipe".
            if let Some(reader) = reader {
                let _ = tokio::time::timeout(STDERR_GRACE, reader).await;
            }
            process.kill().await;
            Err(format!("the MCP handshake failed: {e}"))
        }
    }
}

/// Connects to a streamable HTTP server, whose responses (a JSON body or one event of
/// a stream) may be at most `max_message_bytes`; a bigger one sets `watch.oversized`
/// (and the SDK closes the connection). With `auth`, the SDK's OAuth client adds the
/// token, refreshes it before it expires and once on a `401`; a sign-in the server
/// still refuses sets `watch.auth_lost`.
///
/// # Errors
/// A header that is not valid, or the connection failed.
pub(crate) async fn http(
    url: &str,
    headers: &BTreeMap<String, String>,
    max_message_bytes: usize,
    watcher: ListWatcher,
    watch: &Watch,
    auth: Option<AuthorizationManager>,
) -> Result<Live, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url)
        .max_sse_event_size(max_message_bytes)
        .max_json_response_size(max_message_bytes);
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
    let config = config.custom_headers(custom);
    let served = match auth {
        Some(manager) => {
            let client = AuthClient::new(reqwest::Client::default(), manager);
            let transport = StreamableHttpClientTransport::with_client(
                WatchedClient::new(client, watch),
                config,
            );
            watcher.serve(transport).await
        }
        None => {
            let transport = StreamableHttpClientTransport::with_client(
                WatchedClient::new(reqwest::Client::default(), watch),
                config,
            );
            watcher.serve(transport).await
        }
    };
    let client = served.map_err(|e| format!("connecting to {url} failed: {e}"))?;
    Ok(Live {
        client,
        process: None,
    })
}
