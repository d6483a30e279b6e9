//! The host's side of the sandbox: what the kernel supports, checked once, and for
//! each command a private temporary directory, a pids control group where one can be
//! made, and the helper's command line.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use tokio::process::Command;

use super::helper::HELPER_ARG;
use super::paths::{SYSTEM_READ, SYSTEM_SECRETS};
use super::settings::{NetworkAccess, SandboxMode, SandboxSettings};
use super::spec::{Confinement, HelperSpec};
use super::{LandlockSupport, SandboxError, probe};

/// Runs commands through the helper under the configured sandbox and limits.
#[derive(Debug)]
pub struct CommandSandbox {
    settings: SandboxSettings,
    helper: PathBuf,
    home: PathBuf,
    support: LandlockSupport,
    /// Where each command's pids control group is made (`None`: none can be).
    pids_parent: Option<PathBuf>,
}

/// How one command is run, as its result reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confined {
    /// Under the configured mode.
    Sandboxed,
    /// Without confinement although a mode was configured: the kernel has no Landlock
    /// and the person allowed it.
    UnconfinedByConsent,
}

/// What a command needs while it runs: dropped when it has ended, which removes the
/// private temporary directory and the control group (killing what is left in it).
#[derive(Debug)]
pub struct Prepared {
    _temp: Option<tempfile::TempDir>,
    #[cfg(target_os = "linux")]
    _group: Option<super::cgroup::PidsGroup>,
}

impl CommandSandbox {
    /// The sandbox of `settings` for a host whose home directory is `home` (kept out of
    /// reach), running commands through `helper`: a binary whose `main` calls
    /// [`crate::run_helper_if_requested`] first (the host's own path,
    /// `std::env::current_exe()`). Asks the kernel what it supports.
    ///
    /// # Errors
    /// [`SandboxError::NetworkUnsupported`] when `network: deny` is set and the kernel
    /// cannot refuse TCP.
    pub fn new(
        settings: SandboxSettings,
        helper: PathBuf,
        home: &Path,
    ) -> Result<Self, SandboxError> {
        Self::with_support(settings, helper, home, probe())
    }

    /// As [`CommandSandbox::new`], with the kernel's support as the caller found it
    /// (a host that probed already; a test of a machine without Landlock).
    ///
    /// # Errors
    /// As [`CommandSandbox::new`].
    pub fn with_support(
        settings: SandboxSettings,
        helper: PathBuf,
        home: &Path,
        support: LandlockSupport,
    ) -> Result<Self, SandboxError> {
        if settings.network == NetworkAccess::Deny
            && settings.mode != SandboxMode::Off
            && !matches!(support, LandlockSupport::Available { tcp: true })
        {
            return Err(SandboxError::NetworkUnsupported {
                support: support.clone(),
            });
        }
        #[cfg(target_os = "linux")]
        let pids_parent = super::cgroup::PidsGroup::parent();
        #[cfg(not(target_os = "linux"))]
        let pids_parent = None;
        Ok(Self {
            settings,
            helper,
            home: home.to_path_buf(),
            support,
            pids_parent,
        })
    }

    /// The settings.
    #[must_use]
    pub fn settings(&self) -> &SandboxSettings {
        &self.settings
    }

    /// What the kernel supports.
    #[must_use]
    pub fn support(&self) -> &LandlockSupport {
        &self.support
    }

    /// Whether commands would run unconfined although a mode is configured (no
    /// Landlock): each then needs the person's consent.
    #[must_use]
    pub fn needs_consent(&self) -> bool {
        self.settings.mode != SandboxMode::Off && !self.support.is_available()
    }

    /// One line for the start of a session: the mode, and what is not enforced.
    #[must_use]
    pub fn summary(&self) -> String {
        let mut line = format!("sandbox: {}", self.settings.describe());
        if self.needs_consent() {
            let reason = match &self.support {
                LandlockSupport::Unavailable(reason) => reason.as_str(),
                LandlockSupport::Available { .. } => "",
            };
            line.push_str(&format!(
                " — NOT ENFORCED: this kernel has no Landlock ({reason}); each command asks \
                 before it runs unconfined (or set \"sandbox\": \"off\" in terminal.json)"
            ));
        }
        if !self.processes_capped() {
            line.push_str(
                "; the processes limit is not enforced (running as root without a pids \
                 control group)",
            );
        }
        line
    }

    /// Whether `limits.processes` binds: a control group, or `RLIMIT_NPROC` for a
    /// user other than root.
    #[must_use]
    pub fn processes_capped(&self) -> bool {
        #[cfg(unix)]
        let root = rustix::process::geteuid().is_root();
        #[cfg(not(unix))]
        let root = false;
        self.pids_parent.is_some() || !root
    }

    /// The helper's command line to run `command` in `dir` for the workspace
    /// `workspace`, confined as configured unless `how` says the person allowed running
    /// it unconfined, and what must live until the command has ended. The command gets
    /// exactly the variables `environment`, except that a confined one's `HOME` and
    /// `TMPDIR` are its private temporary directory.
    ///
    /// # Errors
    /// The temporary directory could not be made, or a path is not UTF-8.
    pub fn prepare(
        &self,
        command: &str,
        dir: &Path,
        workspace: &Path,
        how: Confined,
        environment: BTreeMap<OsString, OsString>,
    ) -> Result<(Command, Prepared), SandboxError> {
        let confined = self.settings.mode != SandboxMode::Off && how == Confined::Sandboxed;
        let temp = if confined {
            Some(
                tempfile::Builder::new()
                    // Named after this process: a later start sweeps it if this one
                    // dies (`leftovers.rs`).
                    .prefix(&format!(
                        "{}{}-",
                        super::leftovers::TEMP_PREFIX,
                        std::process::id()
                    ))
                    .tempdir()
                    .map_err(SandboxError::TempDir)?,
            )
        } else {
            None
        };
        #[cfg(target_os = "linux")]
        let group = match &self.pids_parent {
            // It worked at start: failing now must not lift the limit silently.
            Some(parent) => Some(
                super::cgroup::PidsGroup::create(parent, self.settings.limits.processes)
                    .ok_or(SandboxError::ProcessGroup)?,
            ),
            None => None,
        };
        let confine = temp.as_ref().map(|temp| {
            let mut read = self.settings.readable_paths.clone();
            let mut write = vec![temp.path().to_path_buf()];
            match self.settings.mode {
                SandboxMode::ReadOnly => read.push(workspace.to_path_buf()),
                _ => write.push(workspace.to_path_buf()),
            }
            write.extend(self.settings.writable_paths.iter().cloned());
            let mut excluded: Vec<PathBuf> = SYSTEM_SECRETS.iter().map(PathBuf::from).collect();
            excluded.push(self.home.clone());
            Confinement {
                system: SYSTEM_READ.iter().map(PathBuf::from).collect(),
                read,
                write,
                excluded,
                deny_network: self.settings.network == NetworkAccess::Deny,
            }
        });
        let spec = HelperSpec {
            confine,
            limits: Some(self.settings.limits),
            #[cfg(target_os = "linux")]
            cgroup: group.as_ref().map(|g| g.dir().to_path_buf()),
            #[cfg(not(target_os = "linux"))]
            cgroup: None,
            die_with: Some(std::process::id()),
        };
        let spec = serde_json::to_string(&spec).map_err(SandboxError::Spec)?;
        let mut shell = Command::new(&self.helper);
        shell
            .arg(HELPER_ARG)
            .arg(spec)
            .arg(command)
            .current_dir(dir)
            .env_clear()
            .envs(environment);
        if let Some(temp) = &temp {
            shell.env("TMPDIR", temp.path()).env("HOME", temp.path());
        }
        let prepared = Prepared {
            _temp: temp,
            #[cfg(target_os = "linux")]
            _group: group,
        };
        Ok((shell, prepared))
    }
}
