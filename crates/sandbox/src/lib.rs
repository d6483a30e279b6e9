//! # smallebot-sandbox
//!
//! The sandbox launcher, a leaf library (no SmallEBot crate below it): the agent's
//! `ExecuteCommand` tool and its stdio MCP servers start their child processes through
//! it, and the host binary serves as its helper. Its settings ([`SandboxSettings`]) are
//! its own; reading them from terminal.json is the agent's configuration.
//!
//! The sandbox of `ExecuteCommand`: each command runs through a helper process that
//! applies resource limits and the kernel's Landlock rules to itself before it becomes
//! `/bin/sh -c <command>`, so the host stays unconfined.
//!
//! Modes (terminal.json `"sandbox"`): `workspace-write` (the default) reads the system
//! and reads and writes only the workspace and a private temporary directory removed
//! after the command; `read-only` writes only that temporary directory; `off` confines
//! nothing. The home directory (database, configuration, task lists, other users'
//! workspaces) stays out of reach in both confined modes, as do the system's secrets
//! (`/etc/shadow`, SSH host keys). `"network": "deny"` refuses TCP connect and bind
//! (Linux 6.7). Limits ([`CommandLimits`]) apply in every mode.
//!
//! A binary that runs commands calls [`run_helper_if_requested`] first in `main` and
//! hands its own path to [`CommandSandbox::new`].

mod helper;
#[cfg(target_os = "linux")]
mod landlock_rules;
mod launcher;
mod leftovers;
mod paths;
mod settings;
mod spec;

#[cfg(target_os = "linux")]
mod cgroup;
#[cfg(unix)]
mod limits;

pub use helper::{
    FAILURE_CODE, FAILURE_PREFIX, HELPER_ARG, run_helper_if_requested, tied_to_this_process,
};
#[cfg(target_os = "linux")]
pub use landlock_rules::{LandlockSupport, probe};
pub use launcher::{CommandSandbox, Confined, Prepared};
pub use leftovers::sweep_leftovers;
pub use settings::{CommandLimits, NetworkAccess, SandboxMode, SandboxSettings};

/// What the kernel's Landlock can do (always unavailable off Linux).
#[cfg(not(target_os = "linux"))]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LandlockSupport {
    /// Filesystem rules work; `tcp` says whether TCP rules do too.
    Available {
        /// TCP connect and bind can be refused.
        tcp: bool,
    },
    /// No Landlock, and why.
    Unavailable(String),
}

#[cfg(not(target_os = "linux"))]
impl LandlockSupport {
    /// Whether filesystem rules can be enforced.
    #[must_use]
    pub fn is_available(&self) -> bool {
        matches!(self, Self::Available { .. })
    }
}

/// Landlock is Linux's.
#[cfg(not(target_os = "linux"))]
#[must_use]
pub fn probe() -> LandlockSupport {
    LandlockSupport::Unavailable("Landlock needs Linux".to_owned())
}

/// Why the sandbox cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// `network: deny` on a kernel that cannot refuse TCP.
    #[error(
        "terminal.json sets \"network\": \"deny\", but this kernel cannot refuse TCP \
         connections to commands ({}); Landlock TCP rules need Linux 6.7 or newer. Set \
         \"network\": \"allow\" or run on a newer kernel",
        match support {
            LandlockSupport::Unavailable(reason) => format!("no Landlock: {reason}"),
            LandlockSupport::Available { .. } => "its Landlock has no TCP rules".to_owned(),
        }
    )]
    NetworkUnsupported {
        /// What the kernel supports.
        support: LandlockSupport,
    },
    /// The private temporary directory could not be made.
    #[error("could not create the command's private temporary directory ({0}); check TMPDIR")]
    TempDir(#[source] std::io::Error),
    /// The control group that caps a command's processes could not be made (it could
    /// at start).
    #[error(
        "could not create the control group that caps the command's processes; check \
         that the pids cgroup is still mounted and writable"
    )]
    ProcessGroup,
    /// The helper's instructions could not be written (a path that is not UTF-8).
    #[error("could not describe the sandbox to its helper ({0}); use UTF-8 paths")]
    Spec(#[source] serde_json::Error),
}
