//! `xtask-tasks`: the project tasks `cargo xtask` builds and runs (it builds this binary
//! with `smallebot` in one cargo invocation, so that they share one compilation of their
//! dependencies, and tells it where `smallebot` is in `SMALLEBOT_BIN`).
//!
//! - `migrate [--database PATH | --home DIR] [--status]`: apply (or list) database
//!   migrations.
//! - `bench [--only overhead,estimate,compression,search,…]`: performance figures beside
//!   their baselines.
//! - `vendor`: refresh the page's vendored browser libraries (pinned versions) from the
//!   npm registry.
//! - `chaos [--turns N] [--seed S]`: the real binary under injected provider faults;
//!   prints completed/failed turns, retries by reason and store checks.
//! - `real-model [--json] [--server URL]`: the release binary against a real one-slot
//!   llama.cpp server with Gemma 3 270M; times, retries, tokens, the cached share.

mod bench;
mod chaos;
mod migrate;
mod real_model;
mod vendor;

use std::path::PathBuf;
use std::process::ExitCode;

/// The same allocator as the `smallebot` binary, so that benchmarks of the crates measure
/// them as the product runs them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};

/// Project tasks for SmallEBot.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Apply pending database migrations (or list them with --status).
    Migrate(migrate::MigrateArgs),
    /// Print the performance figures beside their baselines.
    Bench(bench::BenchArgs),
    /// Refresh the page's vendored browser libraries from the npm registry.
    Vendor(vendor::VendorArgs),
    /// Soak the real binary under injected provider faults and check what was stored.
    Chaos(chaos::ChaosArgs),
    /// Run the release binary against a real one-slot llama.cpp server with a small model.
    RealModel(real_model::RealModelArgs),
}

/// The `smallebot` binary to run as a process: `SMALLEBOT_BIN`, which `cargo xtask`
/// sets to the binary it built with this one; else `smallebot` beside this binary.
/// `purpose` names the task that needs it, in the error.
pub fn smallebot_binary(purpose: &str) -> Result<PathBuf, String> {
    let binary = match std::env::var_os("SMALLEBOT_BIN") {
        Some(given) => PathBuf::from(given),
        None => std::env::current_exe()
            .map_err(|e| format!("cannot find this binary's directory: {e}"))?
            .with_file_name("smallebot"),
    };
    if binary.is_file() {
        Ok(binary)
    } else {
        Err(format!(
            "{purpose} runs the smallebot binary, and there is none at {}: run it through \
             `cargo xtask`, which builds it",
            binary.display()
        ))
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let result = match cli.task {
        Task::Migrate(args) => runtime.block_on(migrate::run(args)),
        Task::Bench(args) => runtime.block_on(bench::run(args)),
        Task::Chaos(args) => runtime.block_on(chaos::run(args)),
        Task::Vendor(args) => runtime.block_on(vendor::run(args)),
        Task::RealModel(args) => runtime.block_on(real_model::run(args)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
