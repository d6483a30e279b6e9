//! The helper mode of the host binary: `<binary> __sandbox <spec> <command>` applies
//! the limits and the Landlock rules of `<spec>` to itself, then replaces itself with
//! `/bin/sh -c <command>`. Running the rules in a fresh process keeps the host
//! unconfined without any code between `fork` and `exec`.

use std::ffi::OsString;
use std::process::ExitCode;

use super::spec::HelperSpec;

/// The first argument that selects the helper mode.
pub const HELPER_ARG: &str = "__sandbox";

/// The exit code of a helper that could not set the sandbox up (the command did not
/// run); its standard error then starts with [`FAILURE_PREFIX`].
pub(crate) const FAILURE_CODE: i32 = 125;

/// How the helper's error message starts.
pub(crate) const FAILURE_PREFIX: &str = "smallebot sandbox: ";

/// Runs the helper when this process was started as one, and never returns then
/// unless the sandbox could not be set up (the exit code to end with). `None` for a
/// normal start.
///
/// A binary that hands its path to [`crate::sandbox::CommandSandbox`] must call this
/// first in `main`, before any thread is started.
#[must_use]
pub fn run_helper_if_requested() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(std::ffi::OsStr::new(HELPER_ARG)) {
        return None;
    }
    let error = match (args.next(), args.next(), args.next()) {
        (Some(spec), Some(command), None) => run(&spec, command),
        _ => format!("usage: {HELPER_ARG} <spec> <command> (started by SmallEBot, not by hand)"),
    };
    eprintln!("{FAILURE_PREFIX}{error}; the command was not run");
    Some(ExitCode::from(FAILURE_CODE as u8))
}

/// Applies `spec` and executes the command; returns only with what went wrong.
fn run(spec: &std::ffi::OsStr, command: OsString) -> String {
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
    exec_shell(command)
}

/// Limits first (the control group must be joined before anything is confined), then
/// the Landlock rules.
#[cfg(target_os = "linux")]
fn apply(spec: &HelperSpec) -> Result<(), String> {
    super::limits::apply(&spec.limits, spec.cgroup.as_deref())?;
    match &spec.confine {
        Some(rules) => super::landlock_rules::confine(rules),
        None => Ok(()),
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn apply(spec: &HelperSpec) -> Result<(), String> {
    if spec.confine.is_some() {
        return Err("the sandbox needs Linux (Landlock)".to_owned());
    }
    super::limits::apply(&spec.limits, spec.cgroup.as_deref())
}

/// Replaces the process with `/bin/sh -c command`; returns the error when that fails.
#[cfg(unix)]
fn exec_shell(command: OsString) -> String {
    use std::os::unix::process::CommandExt;
    let error = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .exec();
    format!("could not run /bin/sh ({error})")
}

#[cfg(not(unix))]
fn apply(_spec: &HelperSpec) -> Result<(), String> {
    Err("the sandbox helper needs a Unix system".to_owned())
}

#[cfg(not(unix))]
fn exec_shell(_command: OsString) -> String {
    "the sandbox helper needs a Unix system".to_owned()
}
