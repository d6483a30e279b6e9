//! `cargo xtask` — project tasks.
//!
//! - `cargo xtask migrate [--database PATH | --home DIR] [--status]`: apply (or list)
//!   database migrations.

mod migrate;

use std::process::ExitCode;

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
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
