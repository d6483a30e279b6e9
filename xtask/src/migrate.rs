//! `cargo xtask migrate`.

use std::path::PathBuf;

use clap::Args;
use smallebot_infrastructure::{DatabaseLocation, migrate_database, migration_status};

/// Arguments of `cargo xtask migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The database: a SQLite file path or `sqlite://PATH` (default: `smallebot.db` in
    /// the home directory). Any other URL is refused, never taken for a path.
    #[arg(long)]
    database: Option<String>,
    /// The home directory whose `smallebot.db` is migrated.
    #[arg(long, env = "SMALLEBOT_HOME", default_value = "./.agents")]
    home: PathBuf,
    /// Only list applied and pending migrations; change nothing.
    #[arg(long)]
    status: bool,
}

/// Applies or lists migrations, printing what happened.
pub async fn run(args: MigrateArgs) -> Result<(), String> {
    let path = match args.database.as_deref() {
        Some(given) => match DatabaseLocation::parse(given).map_err(|e| e.to_string())? {
            DatabaseLocation::Sqlite(path) => path,
        },
        None => args.home.join("smallebot.db"),
    };
    if args.status {
        let status = migration_status(&path).await.map_err(|e| e.to_string())?;
        println!("{}\n{status}", path.display());
    } else {
        let report = migrate_database(&path).await.map_err(|e| e.to_string())?;
        println!("{}: {report}", path.display());
    }
    Ok(())
}
