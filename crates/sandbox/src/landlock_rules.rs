//! Landlock on Linux: what the kernel supports ([`probe`]), and confining the calling
//! process ([`confine`]) — only ever called in the helper, just before it executes the
//! shell, so the host itself stays unconfined.

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

use super::paths::{DEVICES, list_dir, split_around};
use super::spec::Confinement;

/// The newest Landlock ABI whose rights the sandbox asks for; older kernels get what
/// they support (best effort), except TCP rules when the network is denied.
const ABI_USED: ABI = ABI::V6;

/// What the running kernel's Landlock can do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LandlockSupport {
    /// Filesystem rules work; `tcp` says whether TCP rules do too (ABI 4, Linux 6.7).
    Available {
        /// TCP connect and bind can be refused.
        tcp: bool,
    },
    /// No Landlock: why (not built in, disabled at boot, not Linux).
    Unavailable(String),
}

impl LandlockSupport {
    /// Whether filesystem rules can be enforced.
    #[must_use]
    pub fn is_available(&self) -> bool {
        matches!(self, Self::Available { .. })
    }
}

/// Asks the kernel, without confining anything (a ruleset is created and dropped).
#[must_use]
pub fn probe() -> LandlockSupport {
    let required = |ruleset: Result<Ruleset, landlock::RulesetError>| {
        ruleset
            .and_then(landlock::Ruleset::create)
            .map(drop)
            .map_err(|error| error.to_string())
    };
    let fs = required(
        Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(ABI::V1)),
    );
    if let Err(reason) = fs {
        return LandlockSupport::Unavailable(reason);
    }
    let tcp = required(
        Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessNet::from_all(ABI::V4)),
    );
    LandlockSupport::Available { tcp: tcp.is_ok() }
}

/// Confines the calling thread (and what it executes) to `rules`.
///
/// # Errors
/// What could not be set up; the command must then not run.
pub(crate) fn confine(rules: &Confinement) -> Result<(), String> {
    let excluded: Vec<PathBuf> = rules.excluded.iter().filter_map(canonical).collect();
    let system: Vec<PathBuf> = rules
        .system
        .iter()
        .filter_map(canonical)
        .flat_map(|root| split_around(&root, &excluded, &list_dir))
        .collect();
    let granted = |roots: &[PathBuf]| -> Vec<PathBuf> {
        roots
            .iter()
            .filter_map(canonical)
            .flat_map(|root| {
                let inside: Vec<PathBuf> = excluded
                    .iter()
                    .filter(|e| e.starts_with(&root) && **e != root)
                    .cloned()
                    .collect();
                split_around(&root, &inside, &list_dir)
            })
            .collect()
    };
    let read = granted(&rules.read);
    let write = granted(&rules.write);

    let all = AccessFs::from_all(ABI_USED);
    let read_access = AccessFs::from_read(ABI_USED);
    let device_access = AccessFs::from_file(ABI_USED) | AccessFs::ReadDir;
    let mut ruleset = Ruleset::default()
        .handle_access(all)
        .map_err(fail("filesystem rights"))?;
    if rules.deny_network {
        ruleset = ruleset
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessNet::from_all(ABI::V4))
            .map_err(fail("network rights (TCP rules need Linux 6.7)"))?
            .set_compatibility(CompatLevel::BestEffort);
    }
    let status = ruleset
        .scope(Scope::from_all(ABI_USED))
        .map_err(fail("scopes"))?
        .create()
        .map_err(fail("creating the ruleset"))?
        .add_rules(path_beneath_rules(&system, read_access))
        .map_err(fail("system directories"))?
        .add_rules(path_beneath_rules(&read, read_access))
        .map_err(fail("readable directories"))?
        .add_rules(path_beneath_rules(DEVICES, device_access))
        .map_err(fail("devices"))?
        .add_rules(path_beneath_rules(["/dev"], AccessFs::ReadDir))
        .map_err(fail("/dev"))?
        .add_rules(path_beneath_rules(&write, all))
        .map_err(fail("writable directories"))?
        .restrict_self()
        .map_err(fail("enforcing the ruleset"))?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("the kernel does not enforce Landlock".to_owned());
    }
    Ok(())
}

/// An error message naming the step that failed.
fn fail(step: &'static str) -> impl Fn(landlock::RulesetError) -> String {
    move |error| format!("{step}: {error}")
}

/// The path with links resolved; `None` when it does not exist.
fn canonical(path: &PathBuf) -> Option<PathBuf> {
    Path::new(path).canonicalize().ok()
}
