//! `terminal.json`: the shell tool's settings ([`TerminalSettings`]) and the system
//! prompt's terminal section ([`terminal_rules_text`]).
//!
//! ```json
//! {
//!   "commandBlacklist": ["rm -r /", "sudo", "curl | sh"],
//!   "requireCommandConfirmation": true,
//!   "confirmationTimeoutSeconds": 60,
//!   "commandWhitelist": ["ls", "git status"],
//!   "commandTimeoutSeconds": 60,
//!   "maxOutputChars": 30000,
//!   "sandbox": "workspace-write",
//!   "network": "allow",
//!   "limits": { "cpuSeconds": 600, "memoryMb": 8192, "processes": 512, "openFiles": 1024 },
//!   "readablePaths": ["~/.cargo", "~/.rustup"],
//!   "writablePaths": []
//! }
//! ```
//!
//! Every key is optional. `commandBlacklist` absent (or `null`) means
//! [`DEFAULT_COMMAND_BLACKLIST`]; only an explicitly empty list `[]` turns the blacklist
//! off. Each rule must parse (see [`smallebot_shell::policy`]): a rule that
//! does not is an error naming the file, never silently dropped.

use std::path::Path;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_shell::{CommandPolicy, DEFAULT_COMMAND_BLACKLIST, PolicyError, default_blacklist};

use super::ConfigError;
use super::json::{parse_keys, read_optional};
use super::sandbox::{RawLimits, RawSandbox, sandbox_line};
use smallebot_sandbox::SandboxSettings;

/// The name of the terminal settings file inside the home directory.
pub const TERMINAL_FILE: &str = "terminal.json";

/// Settings from `<home>/terminal.json` (camelCase keys), already range-checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalSettings {
    /// `commandBlacklist`: rules refusing commands, matched on normalized command words.
    /// Absent → [`DEFAULT_COMMAND_BLACKLIST`]; an explicit `[]` means no blacklist.
    pub command_blacklist: Vec<String>,
    /// `requireCommandConfirmation`: ask the person before running a command that is not
    /// whitelisted (default false).
    pub require_command_confirmation: bool,
    /// `confirmationTimeoutSeconds`: how long to wait for the answer before denying
    /// (default 60 s; 1..=3600).
    pub confirmation_timeout: Duration,
    /// `commandWhitelist`: commands that run without confirmation. Exact commands only
    /// (whitespace collapsed), never prefixes; the blacklist still applies to them.
    pub command_whitelist: Vec<String>,
    /// `commandTimeoutSeconds`: how long one command may run before its process group is
    /// killed (default 60 s; 1..=3600).
    pub command_timeout: Duration,
    /// `maxOutputChars`: characters of output returned, keeping the head and the tail
    /// (default 30000; 1000..=1000000).
    pub max_output_chars: usize,
    /// `sandbox`, `network`, `limits`, `readablePaths`, `writablePaths`: how commands
    /// are confined (see [`smallebot_sandbox`]).
    pub sandbox: SandboxSettings,
}

impl TerminalSettings {
    /// Default of `confirmationTimeoutSeconds` and `commandTimeoutSeconds`.
    pub const DEFAULT_TIMEOUT_SECONDS: u64 = 60;
    /// Smallest accepted timeout, in seconds; smaller values are raised to it.
    pub const MIN_TIMEOUT_SECONDS: u64 = 1;
    /// Largest accepted timeout, in seconds; larger values are clamped to it.
    pub const MAX_TIMEOUT_SECONDS: u64 = 3600;
    /// Default of [`TerminalSettings::max_output_chars`].
    pub const DEFAULT_MAX_OUTPUT_CHARS: usize = 30_000;
    /// Smallest `maxOutputChars`; smaller values are raised to it.
    pub const MIN_MAX_OUTPUT_CHARS: usize = 1_000;
    /// Largest `maxOutputChars`; larger values are clamped to it.
    pub const MAX_MAX_OUTPUT_CHARS: usize = 1_000_000;

    /// Loads `<home>/terminal.json`; defaults when the file does not exist.
    ///
    /// # Errors
    /// [`ConfigError::Io`] when the file exists but cannot be read, and the errors of
    /// [`TerminalSettings::from_json`].
    pub fn load(home: &Path) -> Result<Self, ConfigError> {
        let file = home.join(TERMINAL_FILE);
        match read_optional(&file)? {
            Some(text) => Self::from_json(&text, &file),
            None => Ok(Self::default()),
        }
    }

    /// Parses the content of a `terminal.json` (`file` is only used in errors).
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] (with line and column) for invalid JSON or a value of the
    /// wrong type, or an unknown key; [`ConfigError::Rule`] for a blacklist rule that
    /// does not parse or a sandbox value that is not accepted.
    pub fn from_json(text: &str, file: &Path) -> Result<Self, ConfigError> {
        let raw: RawTerminalFile = parse_keys(text, file, "the terminal settings")?;
        let home_dir = std::env::var_os("HOME").map(std::path::PathBuf::from);
        let settings =
            raw.into_settings(home_dir.as_deref())
                .map_err(|message| ConfigError::Rule {
                    file: file.to_path_buf(),
                    message,
                })?;
        settings.policy().map_err(|error| ConfigError::Rule {
            file: file.to_path_buf(),
            message: format!("commandBlacklist: {error}"),
        })?;
        Ok(settings)
    }

    /// The command policy for these settings.
    ///
    /// # Errors
    /// [`PolicyError::InvalidRule`] for a blacklist rule that does not parse (settings
    /// from [`TerminalSettings::load`] have been checked already).
    pub fn policy(&self) -> Result<CommandPolicy, PolicyError> {
        CommandPolicy::new(&self.command_blacklist, &self.command_whitelist)
    }
}

impl Default for TerminalSettings {
    fn default() -> Self {
        Self {
            command_blacklist: default_blacklist(),
            require_command_confirmation: false,
            confirmation_timeout: Duration::from_secs(Self::DEFAULT_TIMEOUT_SECONDS),
            command_whitelist: Vec::new(),
            command_timeout: Duration::from_secs(Self::DEFAULT_TIMEOUT_SECONDS),
            max_output_chars: Self::DEFAULT_MAX_OUTPUT_CHARS,
            sandbox: SandboxSettings::default(),
        }
    }
}

/// `terminal.json` as written: every key optional, integers signed so that a negative
/// value is corrected by the range rules instead of failing as a type error.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawTerminalFile {
    command_blacklist: Option<Vec<String>>,
    require_command_confirmation: Option<bool>,
    confirmation_timeout_seconds: Option<i64>,
    command_whitelist: Option<Vec<String>>,
    command_timeout_seconds: Option<i64>,
    max_output_chars: Option<i64>,
    sandbox: Option<String>,
    network: Option<String>,
    limits: Option<RawLimits>,
    readable_paths: Option<Vec<String>>,
    writable_paths: Option<Vec<String>>,
}

impl RawTerminalFile {
    /// The checked settings; `home_dir` expands `~/` in the sandbox's paths.
    fn into_settings(self, home_dir: Option<&Path>) -> Result<TerminalSettings, String> {
        let sandbox = RawSandbox {
            sandbox: self.sandbox,
            network: self.network,
            limits: self.limits,
            readable_paths: self.readable_paths,
            writable_paths: self.writable_paths,
        }
        .into_settings(home_dir)?;
        let defaults = TerminalSettings::default();
        let seconds = |value: Option<i64>| {
            value.map_or(
                Duration::from_secs(TerminalSettings::DEFAULT_TIMEOUT_SECONDS),
                |s| {
                    Duration::from_secs(clamp(
                        s,
                        TerminalSettings::MIN_TIMEOUT_SECONDS,
                        TerminalSettings::MAX_TIMEOUT_SECONDS,
                    ))
                },
            )
        };
        Ok(TerminalSettings {
            command_blacklist: self.command_blacklist.unwrap_or(defaults.command_blacklist),
            require_command_confirmation: self.require_command_confirmation.unwrap_or(false),
            confirmation_timeout: seconds(self.confirmation_timeout_seconds),
            command_whitelist: self
                .command_whitelist
                .unwrap_or_default()
                .into_iter()
                .filter(|command| !command.trim().is_empty())
                .collect(),
            command_timeout: seconds(self.command_timeout_seconds),
            max_output_chars: self
                .max_output_chars
                .map_or(defaults.max_output_chars, |n| {
                    usize::try_from(clamp(
                        n,
                        TerminalSettings::MIN_MAX_OUTPUT_CHARS as u64,
                        TerminalSettings::MAX_MAX_OUTPUT_CHARS as u64,
                    ))
                    .unwrap_or(TerminalSettings::MAX_MAX_OUTPUT_CHARS)
                }),
            sandbox,
        })
    }
}

/// Clamps a signed value into `min..=max`.
fn clamp(value: i64, min: u64, max: u64) -> u64 {
    u64::try_from(value).map_or(min, |n| n.clamp(min, max))
}

/// The system prompt's `# Terminal Rules` section for these settings.
#[must_use]
pub fn terminal_rules_text(settings: &TerminalSettings) -> String {
    let timeout = settings.command_timeout.as_secs();
    let mut lines = vec![
        "ExecuteCommand runs a command with `/bin/sh -c` in the workspace directory (or in \
         `workingDirectory`, a directory inside the workspace), in its own process group, \
         with no standard input. Use non-interactive commands."
            .to_owned(),
        format!(
            "- Time limit: {timeout} s. Then the whole process group is killed and you get \
             what was captured so far. Processes left running in the background are \
             stopped when the command ends, so do not start servers or daemons."
        ),
        format!(
            "- Output: standard output and error together, at most {} characters; longer \
             output keeps the beginning and the end (the last lines stay visible). The last \
             line gives the exit code; a non-zero exit code is reported, not an error of \
             the tool.",
            settings.max_output_chars
        ),
    ];
    lines.push(blacklist_line(&settings.command_blacklist));
    lines.push(sandbox_line(&settings.sandbox));
    if settings.require_command_confirmation {
        lines.push(format!(
            "- Confirmation: every command not on the whitelist is shown to the user, who \
             must allow it within {} s; a declined or unanswered command does not run. \
             Explain beforehand why you need it.",
            settings.confirmation_timeout.as_secs()
        ));
        if !settings.command_whitelist.is_empty() {
            let list = quoted_list(&settings.command_whitelist, 20);
            lines.push(format!(
                "- These exact commands run without confirmation (not prefixes): {list}."
            ));
        }
    }
    lines.join("\n")
}

/// The blacklist's line: the kinds of commands for the default list, the rules
/// otherwise.
fn blacklist_line(blacklist: &[String]) -> String {
    const NO_RETRY: &str = "Matching looks through quoting, paths, flag order, `;`, `&&`, \
                            pipes and `sh -c`; never try another form of a refused command \
                            — ask the user instead.";
    let is_default = blacklist.len() == DEFAULT_COMMAND_BLACKLIST.len()
        && blacklist
            .iter()
            .zip(DEFAULT_COMMAND_BLACKLIST)
            .all(|(a, b)| a == b);
    if blacklist.is_empty() {
        "- No command blacklist is configured; still never run destructive commands \
         without the user's explicit request."
            .to_owned()
    } else if is_default {
        format!(
            "- Refused commands: deleting system directories, the home directory or the \
             workspace's parent; sudo/su/doas; formatting or overwriting disks; shutting \
             down or rebooting; fork bombs; piping a download into a shell or interpreter. \
             {NO_RETRY}"
        )
    } else {
        let list = quoted_list(blacklist, 30);
        format!("- Refused commands (blacklist rules): {list}. {NO_RETRY}")
    }
}

/// Up to `max` items in backquotes, then "and N more".
fn quoted_list(items: &[String], max: usize) -> String {
    let mut shown: Vec<String> = items.iter().take(max).map(|i| format!("`{i}`")).collect();
    if items.len() > max {
        shown.push(format!("and {} more", items.len() - max));
    }
    shown.join(", ")
}
