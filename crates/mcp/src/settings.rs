//! What the client is told to start: the servers of mcp.json as the agent's
//! configuration read them (the file format, its defaults and its errors live there).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// The environment variable holding the key that seals stored sign-ins: 32 random
/// bytes, base64 (`openssl rand -base64 32`).
pub const TOKEN_KEY_ENV: &str = "SMALLEBOT_MCP_TOKEN_KEY";

/// How the agent reaches one server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process spoken to over its standard input and output.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables (references resolved).
        env: BTreeMap<String, String>,
        /// The directory it starts in (default: the host's).
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint URL.
        url: String,
        /// Headers sent with every request (references resolved).
        headers: BTreeMap<String, String>,
        /// How it signs in (`auth`): none beyond the headers, OAuth, or client
        /// credentials.
        auth: McpAuth,
    },
}

/// How a streamable HTTP server is signed in to (mcp.json's `auth`).
#[derive(Clone, PartialEq, Eq, Default)]
pub enum McpAuth {
    /// No sign-in: only the configured headers (a fixed token, if any).
    #[default]
    None,
    /// OAuth 2.1 authorization code with PKCE, a person signing in with
    /// `smallebot mcp login NAME`: the client registers itself dynamically unless
    /// `clientId` is given.
    OAuth {
        /// `clientId`: a client registered beforehand with the authorization server.
        client_id: Option<String>,
        /// `scopes` to ask for (default: what the server advertises).
        scopes: Vec<String>,
        /// mcp.json's `perUser`: on a shared `serve`, each web user connects it with
        /// their own sign-in (it is not connected at start); one person (`run`,
        /// `chat`) signs in as ever.
        per_user: bool,
    },
    /// OAuth client credentials, for machine-to-machine servers: no person signs in.
    ClientCredentials {
        /// `clientId`.
        client_id: String,
        /// The secret, read from the variable `clientSecretEnv` names.
        client_secret: String,
        /// `scopes` to ask for.
        scopes: Vec<String>,
    },
}

impl std::fmt::Debug for McpAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret: settings end up in logs.
        match self {
            Self::None => f.write_str("None"),
            Self::OAuth {
                client_id,
                scopes,
                per_user,
            } => f
                .debug_struct("OAuth")
                .field("client_id", client_id)
                .field("scopes", scopes)
                .field("per_user", per_user)
                .finish(),
            Self::ClientCredentials {
                client_id, scopes, ..
            } => f
                .debug_struct("ClientCredentials")
                .field("client_id", client_id)
                .field("client_secret", &"[REDACTED]")
                .field("scopes", scopes)
                .finish(),
        }
    }
}

/// One server of mcp.json.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerSettings {
    /// Its name: the prefix of its tools (`{name}__{tool}`).
    pub name: String,
    /// How it is reached.
    pub transport: McpTransport,
    /// `enabled`: whether it is started (default true).
    pub enabled: bool,
    /// `startupTimeoutSeconds`: how long starting and listing its tools may take.
    pub startup_timeout: Duration,
    /// `toolTimeoutSeconds`: how long one call may take.
    pub tool_timeout: Duration,
    /// `confirm`: `Some(true)` asks before every call, `Some(false)` never asks,
    /// `None` asks for tools the server marks destructive.
    pub confirm: Option<bool>,
    /// `maxResultMegabytes`: the largest message the server may send (a tool result
    /// as JSON on the wire), in bytes; a larger one fails the call at once, naming it.
    pub max_message_bytes: usize,
    /// `elicitationTimeoutSeconds`: how long the person has to answer the server's
    /// question during a call (default 300 s); no answer in time declines it.
    pub elicitation_timeout: Duration,
    /// `sampling`: whether the server may ask for a completion of the conversation's
    /// model (`sampling/createMessage`); refused with a message saying so otherwise.
    pub sampling: bool,
}

/// Everything mcp.json configures.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct McpSettings {
    /// The servers, in file order.
    pub servers: Vec<McpServerSettings>,
}

impl McpServerSettings {
    /// Its OAuth settings, when a person signs in to it (`"auth": {"type": "oauth"}`).
    #[must_use]
    pub fn oauth(&self) -> Option<&McpAuth> {
        match &self.transport {
            McpTransport::Http {
                auth: auth @ McpAuth::OAuth { .. },
                ..
            } => Some(auth),
            _ => None,
        }
    }
}

impl McpServerSettings {
    /// Whether each web user of a shared `serve` connects it with their own sign-in
    /// (mcp.json's `perUser`).
    #[must_use]
    pub fn per_user(&self) -> bool {
        matches!(self.oauth(), Some(McpAuth::OAuth { per_user: true, .. }))
    }
}

impl McpSettings {
    /// The servers to start.
    pub fn enabled(&self) -> impl Iterator<Item = &McpServerSettings> {
        self.servers.iter().filter(|s| s.enabled)
    }
}
