//! `cargo xtask` — project tasks.
//!
//! - `cargo xtask demo [--chat | --serve [--addr A]] [--home DIR]`: the host against the
//!   scripted demo model, offline.
//! - `cargo xtask migrate [--database PATH | --home DIR] [--status]`: apply (or list)
//!   database migrations.
//! - `cargo xtask bench [--only overhead,estimate,…] [--debug]`: performance figures
//!   beside their baselines, from a release build.
//! - `cargo xtask chaos [--turns N] [--seed S]`: the real binary under injected provider
//!   faults.
//! - `cargo xtask vendor`: refresh the page's vendored browser libraries.
//! - `cargo xtask real-model [--json] [--server URL]`: the release `smallebot` against a
//!   real one-slot llama.cpp server with a small model (fetched and built once under
//!   `target/real-model/`); skips with one line when there is none.
//!
//! This crate depends on nothing, so it compiles in a moment. It builds what a task needs
//! in **one** cargo invocation — `smallebot` with the testkit's demo model for `demo`,
//! `smallebot` with the `xtask-tasks` binary for the others, the whole workspace in
//! release for `bench` (exactly what `cargo build --release --workspace` builds, so after
//! that nothing is compiled again) — and runs it. One invocation means one feature
//! resolution: each dependency is compiled once, not once for xtask and again for
//! `smallebot` with other features.

mod demo;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "\
Project tasks for SmallEBot.

Usage: cargo xtask <TASK> [ARGS]…

Tasks:
  demo      Run the host against a scripted model, offline (one turn, --chat or --serve)
  migrate   Apply pending database migrations (or list them with --status)
  bench     Print the performance figures beside their baselines (release build)
  chaos     Soak the real binary under injected provider faults and check what was stored
  vendor    Refresh the page's vendored browser libraries from the npm registry
  real-model  Run the release binary against a real one-slot llama.cpp server (slow)

`cargo xtask <TASK> --help` says more about each.";

/// A cargo profile to build in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Profile {
    Dev,
    Release,
}

impl Profile {
    /// Its directory under the target directory.
    fn dir(self) -> &'static str {
        match self {
            Self::Dev => "debug",
            Self::Release => "release",
        }
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(task) = args.next() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest: Vec<String> = args.collect();
    let result = match task.as_str() {
        "demo" => demo::run(&rest),
        "migrate" | "chaos" | "vendor" => tasks(Profile::Dev, &["-p", "smallebot"], &task, &rest),
        "real-model" => real_model(&rest),
        "bench" => {
            let profile = if rest.iter().any(|a| a == "--debug") {
                Profile::Dev
            } else {
                Profile::Release
            };
            tasks(profile, &["--workspace"], &task, &rest)
        }
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => {
            eprintln!("error: no task `{other}`\n\n{USAGE}");
            Ok(ExitCode::from(2))
        }
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Builds `packages` (with the tasks binary) in `profile` and runs `xtask-tasks TASK
/// ARGS…` with `SMALLEBOT_BIN` naming the `smallebot` built beside it.
fn tasks(
    profile: Profile,
    packages: &[&str],
    task: &str,
    args: &[String],
) -> Result<ExitCode, String> {
    let mut selected = packages.to_vec();
    if !packages.contains(&"--workspace") {
        selected.extend(["-p", "xtask-tasks"]);
    }
    let dir = build(profile, &selected)?;
    let status = Command::new(dir.join("xtask-tasks"))
        .arg(task)
        .args(args)
        .env("SMALLEBOT_BIN", dir.join("smallebot"))
        .status()
        .map_err(|e| format!("cannot run {}: {e}", dir.join("xtask-tasks").display()))?;
    Ok(exit_code(status))
}

/// `real-model`: the measured binary is the release `smallebot`; the task that drives it
/// is built in the dev profile (two invocations: a release build of the tasks binary
/// would compile its benchmark and database dependencies for nothing).
fn real_model(args: &[String]) -> Result<ExitCode, String> {
    let release = build(Profile::Release, &["-p", "smallebot"])?;
    let dev = build(Profile::Dev, &["-p", "xtask-tasks"])?;
    let status = Command::new(dev.join("xtask-tasks"))
        .arg("real-model")
        .args(args)
        .env("SMALLEBOT_BIN", release.join("smallebot"))
        .status()
        .map_err(|e| format!("cannot run {}: {e}", dev.join("xtask-tasks").display()))?;
    Ok(exit_code(status))
}

/// `cargo build` of `selected` in `profile`, quietly; the directory the binaries are in.
fn build(profile: Profile, selected: &[&str]) -> Result<PathBuf, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.args(["build", "--quiet"]).args(selected);
    if profile == Profile::Release {
        command.arg("--release");
    }
    let status = command
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "cargo build {} failed ({status})",
            selected.join(" ")
        ));
    }
    Ok(target_dir().join(profile.dir()))
}

/// Where cargo puts what it builds: `CARGO_TARGET_DIR`, else `target/` in the workspace.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    )
}

/// A child's exit status as ours (1 when it was killed by a signal).
fn exit_code(status: std::process::ExitStatus) -> ExitCode {
    match status.code() {
        Some(0) => ExitCode::SUCCESS,
        Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        None => ExitCode::FAILURE,
    }
}
