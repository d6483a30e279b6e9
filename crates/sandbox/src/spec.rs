//! What the host tells the helper to apply before it runs the command: the
//! confinement (absent when the sandbox is off), the limits, and the control group
//! that caps the number of processes. Passed as one JSON argument.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::settings::CommandLimits;

/// Everything the helper applies, in order: the tie to the host, limits, control
/// group, Landlock.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HelperSpec {
    /// The Landlock rules; `None` runs the command unconfined.
    pub(crate) confine: Option<Confinement>,
    /// The resource limits (`None`: the host's own).
    pub(crate) limits: Option<CommandLimits>,
    /// A pids control group (already capped) to join; `None` caps processes with
    /// `RLIMIT_NPROC` where the kernel applies it to this user.
    pub(crate) cgroup: Option<PathBuf>,
    /// The host's process id: the command is killed when that process ends (even by
    /// `kill -9`), and does not start if it has ended already.
    #[serde(default)]
    pub(crate) die_with: Option<u32>,
}

/// The Landlock rules of one command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Confinement {
    /// System directories readable unless they hold an `excluded` path (then split).
    pub(crate) system: Vec<PathBuf>,
    /// Directories the configuration grants for reading (the workspace in read-only
    /// mode, `readablePaths`); only `excluded` paths strictly inside them are cut out.
    pub(crate) read: Vec<PathBuf>,
    /// Directories granted for reading and writing (the private temporary directory,
    /// the workspace in workspace-write mode, `writablePaths`).
    pub(crate) write: Vec<PathBuf>,
    /// What stays out of reach: the home directory, the system's secrets.
    pub(crate) excluded: Vec<PathBuf>,
    /// Refuse TCP connect and bind.
    pub(crate) deny_network: bool,
}
