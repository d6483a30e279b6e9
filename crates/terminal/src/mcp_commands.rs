//! `smallebot mcp …`: `list` (each server's state and sign-in), `tools`, and the
//! sign-in to an OAuth server, `login NAME` (prints the authorization URL, opens a
//! browser where `xdg-open` exists, waits for the redirect on 127.0.0.1) and
//! `logout NAME`. The host starts the servers and opens the store; this runs the
//! command on them.

use std::path::Path;
use std::time::Duration;

use smallebot_mcp::{McpServers, McpSettings, McpSignIns, SignedOut, login, logout};

use crate::command_args::McpCommand;
use crate::error::TerminalError;
use crate::mcp_status::status_lines;

/// How long `mcp login` waits for the browser to come back.
pub const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

/// A sign-in command (`login`, `logout`), which needs no server started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignInCommand {
    /// `mcp login NAME`, opening a browser unless `--no-browser`.
    Login {
        /// The server.
        server: String,
        /// Whether to try `xdg-open`.
        browser: bool,
    },
    /// `mcp logout NAME`.
    Logout {
        /// The server.
        server: String,
    },
}

impl SignInCommand {
    /// The sign-in command `command` is, if it is one.
    #[must_use]
    pub fn of(command: &McpCommand) -> Option<Self> {
        match command {
            McpCommand::Login { server, no_browser } => Some(Self::Login {
                server: server.clone(),
                browser: !no_browser,
            }),
            McpCommand::Logout { server } => Some(Self::Logout {
                server: server.clone(),
            }),
            _ => None,
        }
    }

    /// Signs in or out of the server mcp.json (`settings`) names, for `sign_ins`' user.
    ///
    /// # Errors
    /// An unknown server, one without OAuth, no key, or the sign-in failed.
    pub async fn run(
        self,
        settings: &McpSettings,
        sign_ins: &McpSignIns,
    ) -> Result<(), TerminalError> {
        let name = match &self {
            Self::Login { server, .. } | Self::Logout { server } => server.clone(),
        };
        let Some(server) = settings.servers.iter().find(|s| s.name == name) else {
            return Err(TerminalError::UnknownMcpServer(name));
        };
        match self {
            Self::Login { browser, .. } => {
                login(server, sign_ins, LOGIN_TIMEOUT, |url| {
                    let _ = outln!(
                        "Sign in to the MCP server '{name}' in your browser (waiting up to {} \
                         minutes):\n{url}",
                        LOGIN_TIMEOUT.as_secs() / 60
                    );
                    if browser {
                        open_browser(url);
                    }
                })
                .await?;
                outln!("signed in to '{name}' as {}", sign_ins.user())?;
            }
            Self::Logout { .. } => match logout(server, sign_ins).await? {
                SignedOut::Revoked => outln!("signed out of '{name}'")?,
                SignedOut::NotRevoked(reason) => {
                    outln!("signed out of '{name}'")?;
                    errln!(
                        "warning: the sign-in to '{name}' was deleted here, but not revoked at \
                         its authorization server: {reason}"
                    );
                }
                SignedOut::NotSignedIn => outln!("not signed in to '{name}'")?,
            },
        }
        Ok(())
    }
}

/// Opens `url` with `xdg-open` when there is one (its output dropped, never waited
/// for); nothing otherwise: the URL is printed. Only a web address is opened: the
/// URL comes from the server's metadata, and `xdg-open` would open a `file:` URL or
/// any other scheme with whatever program handles it.
fn open_browser(url: &str) {
    if !is_web_address(url) {
        return;
    }
    let _ = std::process::Command::new("xdg-open")
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
}

/// Whether `url` is an `http:` or `https:` address (any case).
fn is_web_address(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

/// `mcp list`: how each server is doing, or where to add servers (`mcp_file`).
///
/// # Errors
/// Standard output cannot be written.
pub async fn print_status(servers: &McpServers, mcp_file: &Path) -> Result<(), TerminalError> {
    let status = servers.status().await;
    if status.is_empty() {
        outln!(
            "no MCP servers: add them to {} (docs/configuration.md)",
            mcp_file.display()
        )?;
    }
    for line in status_lines(&status) {
        outln!("{line}")?;
    }
    Ok(())
}

/// `mcp tools [SERVER]`: the tools of `server` (or all), one per line with its
/// description.
///
/// # Errors
/// An unknown server, or standard output cannot be written.
pub async fn print_tools(servers: &McpServers, server: Option<&str>) -> Result<(), TerminalError> {
    if let Some(name) = server
        && !servers.status().await.iter().any(|s| s.name == name)
    {
        return Err(TerminalError::UnknownMcpServer(name.to_owned()));
    }
    for (owner, name, description) in servers.tool_list() {
        if server.is_none_or(|s| s == owner) {
            outln!("{name}  {description}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::is_web_address;

    #[test]
    fn only_web_addresses_are_opened() {
        let cases = [
            ("https://auth.example/authorize?x=1", true),
            ("HTTP://127.0.0.1:9/a", true),
            ("file:///etc/passwd", false),
            ("javascript:alert(1)", false),
            ("smb://host/share", false),
            ("", false),
            ("http:/", false),
        ];
        for (url, expected) in cases {
            assert_eq!(is_web_address(url), expected, "{url}");
        }
    }
}
