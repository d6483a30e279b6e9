//! `cargo xtask migrate`.

use std::path::PathBuf;

use clap::Args;
use smallebot_infrastructure::{DatabaseLocation, migrate_database, migration_status};

/// Arguments of `cargo xtask migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// The database: a SQLite file path, `sqlite://PATH`, or a PostgreSQL URL
    /// `postgres://user[:password]@host[:port]/database` (default: `smallebot.db` in the
    /// home directory). Any other URL is refused, never taken for a path.
    #[arg(long, env = "SMALLEBOT_DATABASE_URL")]
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
            DatabaseLocation::Postgres(url) => return run_postgres(&url, args.status).await,
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

/// `migrate` on a PostgreSQL database: the status, or the migrations applied.
async fn run_postgres(url: &str, status_only: bool) -> Result<(), String> {
    if status_only {
        let status = smallebot_postgres::pg_migration_status(url)
            .await
            .map_err(|e| e.to_string())?;
        println!("{}\n{status}", smallebot_postgres::redact_url(url));
    } else {
        println!(
            "{}",
            smallebot_postgres::pg_migrate(url)
                .await
                .map_err(|e| e.to_string())?
        );
    }
    Ok(())
}
