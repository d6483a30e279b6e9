//! # smallebot
//!
//! The SmallEBot command line and composition root: it resolves the home directory,
//! opens the SQLite store (applying migrations, with a backup), wires the crates together
//! by hand and runs one command. See `smallebot --help`.

// The output macros (outln!, out!, errln!) are the terminal crate's.
#[macro_use]
extern crate smallebot_terminal;

mod cli;
mod commands;
mod database;
mod error;
mod shutdown;
mod wiring;

use std::process::ExitCode;

/// The allocator: mimalloc keeps allocation cheap when hundreds of turns run at once
/// (glibc malloc spent a tenth of the web server's CPU under load).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_telemetry::logs;
use smallebot_terminal::stdio::is_closed_pipe;

fn main() -> ExitCode {
    // Before anything else (no thread may exist yet): a sandboxed command's helper.
    if let Some(code) = smallebot_sandbox::run_helper_if_requested() {
        return code;
    }
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        // A mistake on the command line: clap's message echoes what was typed (a
        // value, a subcommand), and its colours on a terminal would let the control
        // characters in it through; written plain with them shown instead.
        Err(error) if error.use_stderr() => {
            errln!("{}", escape_controls(error.render().to_string().trim_end()));
            return ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2));
        }
        // --help, --version: to standard output as clap writes them.
        Err(error) => error.exit(),
    };
    // Held until the process ends: dropping it writes the log lines still waiting.
    let logs = match logs::install(&logs::LogOptions {
        format: match cli.log_format {
            cli::LogFormat::Text => logs::LogFormat::Text,
            cli::LogFormat::Json => logs::LogFormat::Json,
        },
        level: cli.log_level.as_deref(),
        content: cli.log_content,
        serving: matches!(cli.command, cli::Command::Serve { .. }),
    }) {
        Ok(guard) => guard,
        Err(err) => {
            errln!("error: {}", escape_controls(&err.to_string()));
            return ExitCode::from(2);
        }
    };
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
    let result = runtime.block_on(commands::run(cli, logs.metrics()));
    // A read of standard input may still be blocked in the runtime's thread pool
    // (chat left with Ctrl+C): exit without waiting for it.
    runtime.shutdown_background();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of standard output went away (`| head`): what it wanted was
        // written, and the work itself is done and stored.
        Err(
            error::HostError::Io(err)
            | error::HostError::Terminal(smallebot_terminal::TerminalError::Io(err)),
        ) if is_closed_pipe(&err) => ExitCode::SUCCESS,
        Err(err) if err.is_reported() => err.exit_code(),
        Err(err) => {
            // Whatever a message echoes (a path, a name, a server's words) is shown,
            // never obeyed by the terminal.
            errln!("error: {}", escape_controls(&err.to_string()));
            err.exit_code()
        }
    }
}
