//! What terminal.json says about the sandbox: the mode, network access for commands,
//! the limits every command runs under, and extra paths commands may use.

use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// How far a command reaches (`"sandbox"` in terminal.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Reads the system (`/usr`, `/bin`, `/lib`, `/etc`, …); reads and writes only the
    /// workspace and a private temporary directory removed afterwards.
    #[default]
    WorkspaceWrite,
    /// As [`SandboxMode::WorkspaceWrite`], but writes only the private temporary
    /// directory.
    ReadOnly,
    /// No confinement: the command has every right of the host process (limits still
    /// apply).
    Off,
}

impl SandboxMode {
    /// The spelling in terminal.json.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::WorkspaceWrite => "workspace-write",
            Self::ReadOnly => "read-only",
            Self::Off => "off",
        }
    }

    /// Every mode, as spelt in terminal.json.
    pub const NAMES: [&'static str; 3] = ["workspace-write", "read-only", "off"];

    /// The mode spelt `name` in terminal.json.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "workspace-write" => Some(Self::WorkspaceWrite),
            "read-only" => Some(Self::ReadOnly),
            "off" => Some(Self::Off),
            _ => None,
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether commands may open TCP connections (`"network"` in terminal.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NetworkAccess {
    /// TCP connect and bind are allowed.
    #[default]
    Allow,
    /// TCP connect and bind are refused by the kernel (Landlock ABI 4, Linux 6.7).
    Deny,
}

impl NetworkAccess {
    /// The spelling in terminal.json.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Deny => "deny",
        }
    }
}

/// The resource limits every command runs under (`"limits"` in terminal.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandLimits {
    /// `cpuSeconds`: CPU time of each process, in seconds.
    pub cpu_seconds: u64,
    /// `memoryMb`: address space of each process, in MiB.
    pub memory_mb: u64,
    /// `processes`: processes (and threads) the command may have at once.
    pub processes: u64,
    /// `openFiles`: open files of each process.
    pub open_files: u64,
}

impl CommandLimits {
    /// Defaults and accepted ranges, as `(key, default, min, max)`.
    pub const RANGES: [(&'static str, u64, u64, u64); 4] = [
        ("cpuSeconds", 600, 1, 86_400),
        ("memoryMb", 8_192, 64, 1_048_576),
        ("processes", 512, 8, 65_536),
        ("openFiles", 1_024, 16, 1_048_576),
    ];
}

impl Default for CommandLimits {
    fn default() -> Self {
        let [cpu, memory, processes, files] = Self::RANGES.map(|(_, default, _, _)| default);
        Self {
            cpu_seconds: cpu,
            memory_mb: memory,
            processes,
            open_files: files,
        }
    }
}

/// The sandbox part of terminal.json.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxSettings {
    /// `sandbox`: the mode (default `workspace-write`).
    pub mode: SandboxMode,
    /// `network`: TCP for commands (default `allow`).
    pub network: NetworkAccess,
    /// `limits`: per-command resource limits.
    pub limits: CommandLimits,
    /// `readablePaths`: more directories commands may read (absolute, `~/` expanded),
    /// such as a toolchain in the user's home.
    pub readable_paths: Vec<PathBuf>,
    /// `writablePaths`: more directories commands may read and write.
    pub writable_paths: Vec<PathBuf>,
}

impl SandboxSettings {
    /// `workspace-write, network allowed`: the mode as the terminal and results show it.
    #[must_use]
    pub fn describe(&self) -> String {
        match (self.mode, self.network) {
            (SandboxMode::Off, _) => "off".to_owned(),
            (mode, NetworkAccess::Allow) => format!("{mode}, network allowed"),
            (mode, NetworkAccess::Deny) => format!("{mode}, network denied"),
        }
    }
}
