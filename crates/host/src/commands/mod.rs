//! One module per command; `run` dispatches.

pub(crate) mod agents;
mod backup;
mod chat;
mod checkpoints;
mod compact;
pub(crate) mod conversations;
mod mcp;
mod migrate;
mod models;
mod rewind;
pub mod run;
mod serve;
mod serve_users;
mod skills;
mod usage;
mod users;

use smallebot_agent::assembly::Home;
use smallebot_terminal::store_commands::StoreCommand;

use crate::database::Database;

use crate::cli::{Cli, Command};
use crate::error::HostError;

/// Runs the parsed command line.
pub async fn run(
    cli: Cli,
    metrics: Option<std::sync::Arc<smallebot_telemetry::Metrics>>,
) -> Result<(), HostError> {
    // Without a current directory (deleted under us) only `.` is left to look in.
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let home = Home::new(smallebot_core::rules::home_dir::resolve_home(
        cli.home,
        &cwd,
        std::env::var_os("HOME").map(std::path::PathBuf::from),
        std::path::Path::is_dir,
        |p| p.symlink_metadata().is_ok(),
    ))
    .with_database(cli.database);
    match cli.command {
        Command::Migrate { status } => migrate::run(&home, status).await,
        Command::Backup { dest } => backup::back_up(&home, &dest).await,
        Command::Restore { src, force } => backup::restore(&home, &src, force).await,
        Command::Compact { id, focus } => compact::run(&home, &id, focus.as_deref()).await,
        Command::Chat {
            conversation,
            new,
            resume,
            user,
        } => {
            chat::run(
                &home,
                chat::ChatArgs {
                    conversation,
                    new,
                    resume,
                    user,
                },
            )
            .await
        }
        Command::Run {
            prompt,
            conversation,
            json,
            user,
            attach,
        } => {
            run::run(
                &home,
                run::RunArgs {
                    prompt,
                    conversation,
                    json,
                    user,
                    attach,
                },
            )
            .await
        }
        Command::Serve {
            addr,
            public_names,
            open,
            user,
            shutdown_grace,
            metrics_per_user,
        } => {
            let metrics = metrics.unwrap_or_default();
            metrics.count_per_user(metrics_per_user);
            let options = serve::ServeOptions {
                addr,
                public_names,
                open,
                shutdown_grace: std::time::Duration::from_secs_f64(shutdown_grace),
                metrics,
            };
            serve::run(&home, &options, user.as_deref()).await
        }
        Command::Users(command) => users::run(&home, command).await,
        Command::Conversations(command) => conversations::run(&home, command).await,
        Command::Rewind(args) => rewind::run(&home, args).await,
        Command::Checkpoints(command) => checkpoints::run(&home, command).await,
        Command::Usage(args) => usage::run(&home, StoreCommand::Usage(args)).await,
        Command::Permissions(c) => usage::run(&home, StoreCommand::Permissions(c)).await,
        Command::Mcp(command) => mcp::run(&home, command).await,
        Command::Models => models::run(&home).await,
        Command::Skills(command) => skills::run(&home, command),
        Command::Agents(command) => agents::run(&home, command),
    }
}

/// Opens the home's database (or `--database`), applying pending migrations.
pub async fn open_store(home: &Home) -> Result<Database, HostError> {
    Database::open(home).await
}
