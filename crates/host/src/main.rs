//! # smallebot
//!
//! The SmallEBot command line and composition root: it resolves the home directory,
//! opens the SQLite store (applying migrations, with a backup), wires the crates together
//! by hand and runs one command. See `smallebot --help`.

// First: the output macros the other modules use.
#[macro_use]
mod stdio;

mod attach_files;
mod chat;
mod cli;
mod commands;
mod conversation_ref;
mod database;
mod error;
mod home;
mod mcp_status;
mod relay;
mod render;
mod shutdown;
mod skills_text;
mod skills_web;
mod user_path;
mod wiring;

use std::process::ExitCode;

/// The allocator: mimalloc keeps allocation cheap when hundreds of turns run at once
/// (glibc malloc spent a tenth of the web server's CPU under load).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;

fn main() -> ExitCode {
    // Before anything else (no thread may exist yet): a sandboxed command's helper.
    if let Some(code) = smallebot_sandbox::run_helper_if_requested() {
        return code;
    }
    let cli = cli::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            errln!("error: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(commands::run(cli));
    // A read of standard input may still be blocked in the runtime's thread pool
    // (chat left with Ctrl+C): exit without waiting for it.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of standard output went away (`| head`): what it wanted was
        // written, and the work itself is done and stored.
        Err(error::HostError::Io(err)) if stdio::is_closed_pipe(&err) => ExitCode::SUCCESS,
        Err(err) if err.is_reported() => err.exit_code(),
        Err(err) => {
            errln!("error: {err}");
            err.exit_code()
        }
    }
}
