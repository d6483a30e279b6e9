//! `smallebot migrate [--status]`.

use smallebot_agent::assembly::Home;
use smallebot_infrastructure::{DatabaseLocation, migrate_database, migration_status};

use crate::error::HostError;

/// Applies pending migrations to the home's database (or `--database`), or lists them
/// with `--status`.
pub async fn run(home: &Home, status_only: bool) -> Result<(), HostError> {
    let path = match home.database_location().map(DatabaseLocation::parse) {
        None => home.database(),
        Some(location) => match location? {
            DatabaseLocation::Sqlite(path) => path,
            DatabaseLocation::Postgres(url) => return run_postgres(&url, status_only).await,
        },
    };
    if status_only {
        let status = migration_status(&path).await?;
        outln!("{}\n{status}", path.display())?;
    } else {
        let report = migrate_database(&path).await?;
        outln!("{}: {report}", path.display())?;
    }
    Ok(())
}

/// `migrate` on a PostgreSQL database: the status, or the migrations applied.
async fn run_postgres(url: &str, status_only: bool) -> Result<(), HostError> {
    if status_only {
        let status = smallebot_postgres::pg_migration_status(url).await?;
        outln!("{}\n{status}", smallebot_postgres::redact_url(url))?;
    } else {
        outln!("{}", smallebot_postgres::pg_migrate(url).await?)?;
    }
    Ok(())
}
