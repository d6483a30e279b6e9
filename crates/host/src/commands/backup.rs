//! `smallebot backup DEST` and `smallebot restore SRC [--force]` (the work is
//! `smallebot_infrastructure::backup`'s).

use smallebot_agent::assembly::Home;
use smallebot_infrastructure::DatabaseLocation;
use smallebot_infrastructure::backup::{HomeParts, back_up_home, restore_home};

use crate::error::HostError;

/// What of `home` a backup covers: its SQLite database (none with PostgreSQL), task
/// lists and configuration.
fn parts(home: &Home) -> Result<HomeParts, HostError> {
    let database = match home.database_location().map(DatabaseLocation::parse) {
        None => Some(home.database()),
        Some(location) => match location? {
            DatabaseLocation::Sqlite(path) => Some(path),
            DatabaseLocation::Postgres(_) => None,
        },
    };
    Ok(HomeParts {
        root: home.root().to_path_buf(),
        database,
        tasks: home.tasks_dir(),
        configuration: home.configuration_entries(),
        users: home.users_dir(),
        user_configuration: home.user_configuration_entries(),
    })
}

/// Writes the backup of `home` into the new folder `dest`.
pub async fn back_up(home: &Home, dest: &std::path::Path) -> Result<(), HostError> {
    let report = back_up_home(&parts(home)?, dest).await?;
    outln!("{report}")?;
    Ok(())
}

/// Restores the backup `src` into `home`.
pub async fn restore(home: &Home, src: &std::path::Path, force: bool) -> Result<(), HostError> {
    let report = restore_home(src, &parts(home)?, force).await?;
    outln!("{report}")?;
    Ok(())
}
