//! `mcp.json`: the Model Context Protocol servers whose tools the agent gets, in either
//! form people already write — `{"mcpServers": {NAME: {...}}}` or `{NAME: {...}}`.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"] },
//!     "search": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer ${SEARCH_TOKEN}" } }
//!   }
//! }
//! ```
//!
//! A server is a child process (`command`, `args`, `env`, `cwd`) spoken to over stdio,
//! or a streamable HTTP endpoint (`url`, `headers`). `env` and `headers` values may use
//! `${VAR}`; a variable that is not set is an error naming the server and the key.
//! Optional: `enabled` (default true), `startupTimeoutSeconds` (10), `toolTimeoutSeconds`
//! (60), `confirm` (ask before each call; default: only for tools the server marks
//! destructive), `auth` of a remote server (OAuth or client credentials, see
//! [`super::mcp_auth`]), `perUser` (an OAuth server each web user of a shared `serve`
//! connects with their own sign-in; refused on any other server),
//! `elicitationTimeoutSeconds` (300: how long the person has to answer a server's
//! question during a call), `sampling` (false: whether the server may ask the
//! conversation's model for a completion).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use smallebot_core::rules::elicitation::DEFAULT_ELICITATION_TIMEOUT_SECONDS;
use smallebot_mcp::{McpAuth, McpServerSettings, McpSettings, McpTransport};

use super::ConfigError;
use super::env_refs::resolve;
use super::json::{parse, read_optional};
use super::keys::{Keys, checked_object, error_at_key};
use super::mcp_auth::RawAuth;

/// The name of the MCP settings file inside the home directory.
pub const MCP_FILE: &str = "mcp.json";

/// Default of `startupTimeoutSeconds`.
pub const DEFAULT_STARTUP_TIMEOUT_SECONDS: u64 = 10;
/// Default of `toolTimeoutSeconds`.
pub const DEFAULT_TOOL_TIMEOUT_SECONDS: u64 = 60;
/// Largest accepted timeout, in seconds.
const MAX_TIMEOUT_SECONDS: u64 = 3600;
/// Default of `maxResultMegabytes` (MiB).
pub const DEFAULT_MAX_RESULT_MEGABYTES: usize = 32;
/// Largest accepted `maxResultMegabytes` (MiB).
const MAX_MAX_RESULT_MEGABYTES: usize = 1024;
/// Bytes in a MiB.
const MIB: usize = 1024 * 1024;

/// One server as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawServer {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    enabled: Option<bool>,
    startup_timeout_seconds: Option<i64>,
    tool_timeout_seconds: Option<i64>,
    confirm: Option<bool>,
    max_result_megabytes: Option<i64>,
    auth: Option<RawAuth>,
    per_user: Option<bool>,
    elicitation_timeout_seconds: Option<i64>,
    sampling: Option<bool>,
}

/// Loads `<home>/mcp.json` (no servers when it does not exist), resolving `${VAR}`
/// with `env`.
///
/// # Errors
/// [`ConfigError::Invalid`] with the position for invalid JSON, an unknown key or a
/// value of the wrong type; [`ConfigError::Rule`] for a server that breaks a rule
/// (neither or both of `command` and `url`, a timeout out of range, a variable that
/// is not set).
pub fn load_mcp_settings(
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<McpSettings, ConfigError> {
    let file = home.join(MCP_FILE);
    match read_optional(&file)? {
        Some(text) => mcp_settings_from_json(&text, &file, env),
        None => Ok(McpSettings::default()),
    }
}

/// Parses the content of an mcp.json (`file` is only used in errors).
///
/// # Errors
/// As [`load_mcp_settings`].
pub fn mcp_settings_from_json(
    text: &str,
    file: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<McpSettings, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value: Value = parse(text, file)?;
    let Value::Object(top) = &value else {
        return Err(rule(
            file,
            "expected a JSON object of MCP servers".to_owned(),
        ));
    };
    // The wrapper form, when its key holds an object; else the flat map.
    let servers = match top.get("mcpServers") {
        Some(Value::Object(servers)) if top.len() == 1 => servers,
        Some(_) if top.len() > 1 => {
            return Err(error_at_key(
                text,
                file,
                "mcpServers",
                "\"mcpServers\" must be the only key when given; put every server \
                     inside it"
                    .to_owned(),
            ));
        }
        _ => top,
    };
    let server_keys = Keys::of::<RawServer>("an MCP server");
    let mut parsed = Vec::with_capacity(servers.len());
    for (name, server) in servers {
        check_name(name, text, file)?;
        if !server.is_object() {
            return Err(error_at_key(
                text,
                file,
                name,
                format!("MCP server \"{name}\" must be an object with \"command\" or \"url\""),
            ));
        }
        let object = checked_object(server, text, file, &server_keys)?;
        let raw: RawServer = serde_json::from_value(Value::Object(object)).map_err(|error| {
            error_at_key(text, file, name, format!("MCP server \"{name}\": {error}"))
        })?;
        parsed.push(raw.into_settings(name, file, env)?);
    }
    Ok(McpSettings { servers: parsed })
}

impl RawServer {
    fn into_settings(
        self,
        name: &str,
        file: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<McpServerSettings, ConfigError> {
        let at = |message: String| rule(file, format!("MCP server \"{name}\": {message}"));
        self.check_type().map_err(at)?;
        let (megabytes, startup, tool) = (
            self.max_result_megabytes,
            self.startup_timeout_seconds,
            self.tool_timeout_seconds,
        );
        let (enabled, confirm) = (self.enabled.unwrap_or(true), self.confirm);
        let per_user = self.per_user.unwrap_or(false);
        let (asking, sampling) = (
            self.elicitation_timeout_seconds,
            self.sampling.unwrap_or(false),
        );
        let transport = per_user_transport(self.transport(&at, env)?, per_user).map_err(at)?;
        let max_message_bytes = max_message_bytes(megabytes).map_err(at)?;
        let startup_timeout = seconds(
            "startupTimeoutSeconds",
            startup,
            DEFAULT_STARTUP_TIMEOUT_SECONDS,
        )
        .map_err(at)?;
        let tool_timeout =
            seconds("toolTimeoutSeconds", tool, DEFAULT_TOOL_TIMEOUT_SECONDS).map_err(at)?;
        let elicitation_timeout = seconds(
            "elicitationTimeoutSeconds",
            asking,
            DEFAULT_ELICITATION_TIMEOUT_SECONDS,
        )
        .map_err(at)?;
        Ok(McpServerSettings {
            elicitation_timeout,
            sampling,
            max_message_bytes,
            name: name.to_owned(),
            transport,
            enabled,
            startup_timeout,
            tool_timeout,
            confirm,
        })
    }

    /// `type`, when given, names a transport we speak and matches `command` or `url`.
    fn check_type(&self) -> Result<(), String> {
        let Some(kind) = self.kind.as_deref() else {
            return Ok(());
        };
        let expected = match kind {
            "stdio" => self.command.is_some(),
            "http" | "streamable-http" | "streamableHttp" => self.url.is_some(),
            "sse" => {
                return Err(
                    "the SSE transport is not supported; use the server's streamable \
                            HTTP endpoint (type \"http\")"
                        .to_owned(),
                );
            }
            other => {
                return Err(format!(
                    "unknown type \"{other}\"; use \"stdio\" or \"http\""
                ));
            }
        };
        if expected {
            Ok(())
        } else {
            Err(format!(
                "type \"{kind}\" needs \"{}\"",
                if kind == "stdio" { "command" } else { "url" }
            ))
        }
    }

    /// How the server is reached: `command` (stdio) or `url` (HTTP), exactly one, with
    /// the `${VAR}` references of `env` or `headers` resolved.
    fn transport(
        self,
        at: &dyn Fn(String) -> ConfigError,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<McpTransport, ConfigError> {
        match (self.command, self.url) {
            (Some(command), None) => {
                if self.auth.is_some() {
                    return Err(at(
                        "\"auth\" is for remote servers (\"url\"); a local server gets its \
                         secrets through \"env\""
                            .to_owned(),
                    ));
                }
                if command.trim().is_empty() {
                    return Err(at("\"command\" is empty".to_owned()));
                }
                Ok(McpTransport::Stdio {
                    command,
                    args: self.args,
                    env: resolve_all(self.env, "env", at, env)?,
                    cwd: self.cwd,
                })
            }
            (None, Some(url)) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(at(format!(
                        "\"url\" must start with http:// or https:// (got \"{url}\")"
                    )));
                }
                let auth = match self.auth {
                    Some(raw) => raw.into_auth(env).map_err(at)?,
                    None => McpAuth::None,
                };
                let headers = resolve_all(self.headers, "headers", at, env)?;
                if auth != McpAuth::None
                    && headers
                        .keys()
                        .any(|h| h.eq_ignore_ascii_case("authorization"))
                {
                    return Err(at(
                        "give either an \"Authorization\" header or \"auth\", not both".to_owned(),
                    ));
                }
                Ok(McpTransport::Http { url, headers, auth })
            }
            (Some(_), Some(_)) => Err(at(
                "give either \"command\" (a local server) or \"url\" (a remote one), not both"
                    .to_owned(),
            )),
            (None, None) => Err(at(
                "give \"command\" (a local server) or \"url\" (a remote one)".to_owned(),
            )),
        }
    }
}

/// `transport` with `perUser` set on its OAuth sign-in; the message says why a server
/// that is not signed in to with OAuth cannot be per-user.
fn per_user_transport(transport: McpTransport, per_user: bool) -> Result<McpTransport, String> {
    if !per_user {
        return Ok(transport);
    }
    match transport {
        McpTransport::Http {
            url,
            headers,
            auth: McpAuth::OAuth {
                client_id, scopes, ..
            },
        } => Ok(McpTransport::Http {
            url,
            headers,
            auth: McpAuth::OAuth {
                client_id,
                scopes,
                per_user: true,
            },
        }),
        McpTransport::Stdio { .. } => Err("\"perUser\" is for remote servers (\"url\") signed \
             in to with \"auth\": {\"type\": \"oauth\"}; a local (\"command\") server is one \
             process shared by everyone: remove \"perUser\""
            .to_owned()),
        McpTransport::Http { .. } => Err("\"perUser\" needs \"auth\": {\"type\": \"oauth\"}: \
             each web user connects the server with their own sign-in"
            .to_owned()),
    }
}

/// A timeout in seconds: `default` when not given, else 1 to [`MAX_TIMEOUT_SECONDS`].
fn seconds(key: &str, value: Option<i64>, default: u64) -> Result<Duration, String> {
    match value {
        None => Ok(Duration::from_secs(default)),
        Some(n) => u64::try_from(n)
            .ok()
            .filter(|n| (1..=MAX_TIMEOUT_SECONDS).contains(n))
            .map(Duration::from_secs)
            .ok_or_else(|| {
                format!(
                    "{key}: {n} is out of range; give 1..={MAX_TIMEOUT_SECONDS} (default {default})"
                )
            }),
    }
}

/// `maxResultMegabytes` in bytes: the default when not given, else 1 to
/// [`MAX_MAX_RESULT_MEGABYTES`] MiB.
fn max_message_bytes(megabytes: Option<i64>) -> Result<usize, String> {
    match megabytes {
        None => Ok(DEFAULT_MAX_RESULT_MEGABYTES * MIB),
        Some(n) => usize::try_from(n)
            .ok()
            .filter(|n| (1..=MAX_MAX_RESULT_MEGABYTES).contains(n))
            .map(|n| n * MIB)
            .ok_or_else(|| {
                format!(
                    "maxResultMegabytes: {n} is out of range; give \
                     1..={MAX_MAX_RESULT_MEGABYTES} (default {DEFAULT_MAX_RESULT_MEGABYTES})"
                )
            }),
    }
}

/// A server name: 1 to 64 letters, digits, `-` or `_` (it prefixes tool names).
fn check_name(name: &str, text: &str, file: &Path) -> Result<(), ConfigError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(error_at_key(
            text,
            file,
            name,
            format!(
                "MCP server name \"{name}\" is not usable: use 1 to 64 letters, digits, '-' \
                 or '_' (it prefixes the server's tool names)"
            ),
        ))
    }
}

/// Every value with its `${VAR}` references resolved.
fn resolve_all(
    values: BTreeMap<String, String>,
    key: &str,
    at: &dyn Fn(String) -> ConfigError,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<BTreeMap<String, String>, ConfigError> {
    values
        .into_iter()
        .map(|(name, value)| {
            let resolved = resolve(&value, env).map_err(|missing| {
                at(format!(
                    "{key}.{name} uses ${{{missing}}}, which is not set: export {missing}=... \
                     before starting"
                ))
            })?;
            Ok((name, resolved))
        })
        .collect()
}

/// A rule error for `file`.
fn rule(file: &Path, message: String) -> ConfigError {
    ConfigError::Rule {
        file: file.to_path_buf(),
        message,
    }
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
