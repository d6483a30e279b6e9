//! `cargo xtask` — project tasks.
//!
//! - `cargo xtask migrate [--database PATH | --home DIR] [--status]`: apply (or list)
//!   database migrations.
//! - `cargo xtask demo [--chat]`: the host against the scripted testkit model, offline.
//! - `cargo xtask bench [--only overhead,estimate,compression,search]`: performance
//!   figures beside their baselines.
//! - `cargo xtask vendor`: refresh the page's vendored browser libraries (pinned
//!   versions) from the npm registry.
//! - `cargo xtask chaos [--turns N] [--seed S]`: the real binary under injected provider
//!   faults; prints completed/failed turns, retries by reason and store checks.

mod bench;
mod chaos;
mod demo;
mod migrate;
mod vendor;

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
    /// Run the host against a scripted model, offline (one turn, or --chat).
    Demo(demo::DemoArgs),
    /// Print the performance figures beside their baselines.
    Bench(bench::BenchArgs),
    /// Refresh the page's vendored browser libraries from the npm registry.
    Vendor(vendor::VendorArgs),
    /// Soak the real binary under injected provider faults and check what was stored.
    Chaos(chaos::ChaosArgs),
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
        Task::Demo(args) => runtime.block_on(demo::run(args)),
        Task::Bench(args) => runtime.block_on(bench::run(args)),
        Task::Chaos(args) => runtime.block_on(chaos::run(args)),
        Task::Vendor(args) => runtime.block_on(vendor::run(args)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
