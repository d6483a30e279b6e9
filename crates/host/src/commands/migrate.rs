//! `smallebot migrate [--status]`.

use smallebot_agent::assembly::Home;
use smallebot_infrastructure::{migrate_database, migration_status};

use crate::error::HostError;

/// Applies pending migrations to the home's database, or lists them with `--status`.
pub async fn run(home: &Home, status_only: bool) -> Result<(), HostError> {
    let path = home.database();
    if status_only {
        let status = migration_status(&path).await?;
        println!("{}\n{status}", path.display());
    } else {
        let report = migrate_database(&path).await?;
        println!("{}: {report}", path.display());
    }
    Ok(())
}
