//! The helper mode of the host binary: `<binary> __sandbox <spec> <command>` applies
//! the limits and the Landlock rules of `<spec>` to itself, then replaces itself with
//! `/bin/sh -c <command>`; `<binary> __sandbox <spec> -- <program> [args…]` executes
//! the program directly (an MCP server). Running the rules in a fresh process keeps
//! the host unconfined without any code between `fork` and `exec`.

use std::ffi::OsString;
use std::process::ExitCode;

use super::spec::HelperSpec;

/// The first argument that selects the helper mode.
pub const HELPER_ARG: &str = "__sandbox";

/// The exit code of a helper that could not set the sandbox up (the command did not
/// run); its standard error then starts with [`FAILURE_PREFIX`].
pub const FAILURE_CODE: i32 = 125;

/// How the helper's error message starts.
pub const FAILURE_PREFIX: &str = "smallebot sandbox: ";

/// Runs the helper when this process was started as one, and never returns then
/// unless the sandbox could not be set up (the exit code to end with). `None` for a
/// normal start.
///
/// A binary that hands its path to [`crate::CommandSandbox`] must call this
/// first in `main`, before any thread is started.
#[must_use]
pub fn run_helper_if_requested() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(std::ffi::OsStr::new(HELPER_ARG)) {
        return None;
    }
    let rest: Vec<OsString> = args.collect();
    let error = match rest.as_slice() {
        [spec, dashes, program, arguments @ ..] if dashes == "--" => {
            run(spec, Target::Program(program.clone(), arguments.to_vec()))
        }
        [spec, command] => run(spec, Target::Shell(command.clone())),
        _ => format!(
            "usage: {HELPER_ARG} <spec> <command> | {HELPER_ARG} <spec> -- <program> [args…] \
             (started by SmallEBot, not by hand)"
        ),
    };
    {
        use std::io::Write as _;
        // The command's standard error may be closed; the exit code still says it.
        let _ = writeln!(
            std::io::stderr(),
            "{FAILURE_PREFIX}{error}; the command was not run"
        );
    }
    Some(ExitCode::from(FAILURE_CODE as u8))
}

/// What the helper becomes.
enum Target {
    /// `/bin/sh -c <command>`.
    Shell(OsString),
    /// A program with its arguments.
    Program(OsString, Vec<OsString>),
}

/// Applies `spec` and executes the target; returns only with what went wrong.
fn run(spec: &std::ffi::OsStr, target: Target) -> String {
    let Some(spec) = spec.to_str() else {
        return "the spec is not UTF-8".to_owned();
    };
    let spec: HelperSpec = match serde_json::from_str(spec) {
        Ok(spec) => spec,
        Err(error) => return format!("the spec does not parse ({error})"),
    };
    if let Err(error) = apply(&spec) {
        return error;
    }
    match target {
        Target::Shell(command) => exec(OsString::from("/bin/sh"), vec!["-c".into(), command]),
        Target::Program(program, arguments) => exec(program, arguments),
    }
}

/// Limits first (the control group must be joined before anything is confined), then
/// the Landlock rules, then the capabilities are dropped.
#[cfg(target_os = "linux")]
fn apply(spec: &HelperSpec) -> Result<(), String> {
    if let Some(host) = spec.die_with {
        die_with(host)?;
    }
    if let Some(limits) = &spec.limits {
        super::limits::apply(limits, spec.cgroup.as_deref())?;
    }
    match &spec.confine {
        Some(rules) => {
            super::landlock_rules::confine(rules)?;
            drop_capabilities()
        }
        None => Ok(()),
    }
}

/// Clears every capability (a confined command run by root keeps uid 0 but may not
/// override file permissions, read kernel memory, trace, …). Landlock has set
/// `no_new_privs`, so the program executed next cannot regain them.
#[cfg(target_os = "linux")]
fn drop_capabilities() -> Result<(), String> {
    use rustix::thread::{CapabilitySet, CapabilitySets, set_capabilities};
    let none = CapabilitySets {
        effective: CapabilitySet::empty(),
        permitted: CapabilitySet::empty(),
        inheritable: CapabilitySet::empty(),
    };
    set_capabilities(None, none).map_err(|e| format!("could not drop capabilities: {e}"))
}

/// Asks the kernel to kill this process when the host `host` (its parent) ends; an
/// error when it has ended already.
#[cfg(target_os = "linux")]
fn die_with(host: u32) -> Result<(), String> {
    use rustix::process::{Signal, getppid, set_parent_process_death_signal};
    set_parent_process_death_signal(Some(Signal::KILL))
        .map_err(|e| format!("could not tie the command to the host process: {e}"))?;
    let parent = getppid().map_or(0, |p| p.as_raw_pid().unsigned_abs());
    if parent == host {
        Ok(())
    } else {
        Err(format!("the host process {host} has ended"))
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn apply(spec: &HelperSpec) -> Result<(), String> {
    if spec.confine.is_some() {
        return Err("the sandbox needs Linux (Landlock)".to_owned());
    }
    match &spec.limits {
        Some(limits) => super::limits::apply(limits, spec.cgroup.as_deref()),
        None => Ok(()),
    }
}

/// Replaces the process with `program arguments`; returns the error when that fails.
#[cfg(unix)]
fn exec(program: OsString, arguments: Vec<OsString>) -> String {
    use std::os::unix::process::CommandExt;
    let error = std::process::Command::new(&program).args(arguments).exec();
    format!("could not run {} ({error})", program.to_string_lossy())
}

#[cfg(not(unix))]
fn apply(_spec: &HelperSpec) -> Result<(), String> {
    Err("the sandbox helper needs a Unix system".to_owned())
}

#[cfg(not(unix))]
fn exec(_program: OsString, _arguments: Vec<OsString>) -> String {
    "the sandbox helper needs a Unix system".to_owned()
}

/// A command that runs `program arguments` through `helper` (a binary whose `main`
/// calls [`run_helper_if_requested`] first), tied to this process: the kernel kills it
/// when this process ends, however it ends (Linux). For MCP servers.
#[must_use]
pub fn tied_to_this_process(
    helper: &std::path::Path,
    program: &str,
    arguments: &[String],
) -> tokio::process::Command {
    let spec = HelperSpec {
        confine: None,
        limits: None,
        cgroup: None,
        die_with: Some(std::process::id()),
    };
    let mut command = tokio::process::Command::new(helper);
    command
        .arg(HELPER_ARG)
        .arg(serde_json::to_string(&spec).unwrap_or_default())
        .arg("--")
        .arg(program)
        .args(arguments);
    command
}
