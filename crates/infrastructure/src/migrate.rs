//! Schema migrations: status, backup, apply, one process at a time
//! ([`MigrationLock`]).

use std::path::{Path, PathBuf};

use sqlx::SqlitePool;

use crate::error::StoreError;
use crate::migrate_lock::MigrationLock;
use crate::open::{check_sqlite_header, connect_read_only, connect_read_write};

// `MIGRATOR`: the migrations of `migrations/`, embedded at build time (`build.rs`).
include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// One schema version: its number and description.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaVersion {
    /// The migration number (file prefix).
    pub version: i64,
    /// Its description (file name after the number).
    pub description: String,
}

/// Which migrations a database has and which it lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationStatus {
    /// Applied, oldest first.
    pub applied: Vec<SchemaVersion>,
    /// Known to this build but not applied yet, oldest first.
    pub pending: Vec<SchemaVersion>,
}

/// What [`migrate_database`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationReport {
    /// Migrations applied by this call, oldest first (empty: "up to date").
    pub applied: Vec<SchemaVersion>,
    /// The copy made before changing an existing database.
    pub backup: Option<PathBuf>,
}

impl std::fmt::Display for SchemaVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04} {}", self.version, self.description)
    }
}

impl std::fmt::Display for MigrationStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for v in &self.applied {
            writeln!(f, "applied  {v}")?;
        }
        for v in &self.pending {
            writeln!(f, "pending  {v}")?;
        }
        if self.pending.is_empty() {
            write!(f, "up to date")
        } else {
            write!(f, "{} pending", self.pending.len())
        }
    }
}

impl std::fmt::Display for MigrationReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.applied.is_empty() {
            return write!(f, "up to date: no pending migrations");
        }
        if let Some(backup) = &self.backup {
            writeln!(f, "backed up to {}", backup.display())?;
        }
        for v in &self.applied {
            writeln!(f, "applied {v}")?;
        }
        write!(f, "{} migration(s) applied", self.applied.len())
    }
}

fn known_versions() -> Vec<SchemaVersion> {
    MIGRATOR
        .iter()
        .filter(|m| m.migration_type.is_up_migration())
        .map(|m| SchemaVersion {
            version: m.version,
            description: m.description.to_string(),
        })
        .collect()
}

/// Applied versions as recorded in `_sqlx_migrations` (`success` flag included).
async fn recorded_versions(pool: &SqlitePool, path: &Path) -> Result<Vec<(i64, bool)>, StoreError> {
    let open_err = |source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    };
    let has_table: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
    )
    .fetch_one(pool)
    .await
    .map_err(open_err)?;
    if has_table == 0 {
        return Ok(Vec::new());
    }
    sqlx::query_as::<_, (i64, bool)>(
        "SELECT version, success FROM _sqlx_migrations ORDER BY version",
    )
    .fetch_all(pool)
    .await
    .map_err(|source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads the state of an existing database without changing it, and refuses files
/// that are not databases, are newer than this build, or hold an unfinished migration.
pub(crate) async fn inspect(path: &Path) -> Result<Option<Vec<i64>>, StoreError> {
    if !check_sqlite_header(path)? {
        return Ok(None);
    }
    let pool = connect_read_only(path).await?;
    let recorded = recorded_versions(&pool, path).await;
    pool.close().await;
    let recorded = recorded?;
    let known_max = known_versions().last().map_or(0, |v| v.version);
    if let Some((found, _)) = recorded.iter().filter(|(v, _)| *v > known_max).max() {
        return Err(StoreError::SchemaTooNew {
            path: path.to_path_buf(),
            found: *found,
            known: known_max,
        });
    }
    if let Some((version, _)) = recorded.iter().find(|(_, ok)| !ok) {
        return Err(StoreError::DirtyMigration {
            path: path.to_path_buf(),
            version: *version,
        });
    }
    Ok(Some(recorded.into_iter().map(|(v, _)| v).collect()))
}

/// Lists applied and pending migrations of the database at `path` (a missing file has
/// everything pending). Changes nothing.
///
/// # Errors
/// See [`StoreError`].
pub async fn migration_status(path: &Path) -> Result<MigrationStatus, StoreError> {
    let applied_versions = inspect(path).await?.unwrap_or_default();
    let (applied, pending) = known_versions()
        .into_iter()
        .partition(|v| applied_versions.contains(&v.version));
    Ok(MigrationStatus { applied, pending })
}

/// Applies every pending migration to the database at `path` (created if missing).
/// Another process migrating the same database is waited for; what it applied is not
/// applied again.
///
/// # Errors
/// See [`StoreError`].
pub async fn migrate_database(path: &Path) -> Result<MigrationReport, StoreError> {
    migrate(path, None).await
}

/// Applies pending migrations up to and including `target` only. Tools and tests use
/// it to build databases at an older schema version.
///
/// # Errors
/// See [`StoreError`].
pub async fn migrate_database_to(path: &Path, target: i64) -> Result<MigrationReport, StoreError> {
    migrate(path, Some(target)).await
}

/// The migrations `applied` lacks, up to `target`.
fn pending(applied: &[i64], target: Option<i64>) -> Vec<SchemaVersion> {
    known_versions()
        .into_iter()
        .filter(|v| !applied.contains(&v.version))
        .filter(|v| target.is_none_or(|t| v.version <= t))
        .collect()
}

async fn migrate(path: &Path, target: Option<i64>) -> Result<MigrationReport, StoreError> {
    let up_to_date = MigrationReport {
        applied: Vec::new(),
        backup: None,
    };
    // Opening an up-to-date database takes no lock and writes nothing.
    if pending(&inspect(path).await?.unwrap_or_default(), target).is_empty() {
        return Ok(up_to_date);
    }
    // Another process may be migrating it right now: wait for it, then look again.
    let _lock = MigrationLock::acquire(path).await?;
    let existing = inspect(path).await?;
    let applied_before = existing.clone().unwrap_or_default();
    let to_apply = pending(&applied_before, target);
    if to_apply.is_empty() {
        return Ok(up_to_date);
    }
    let backup = match existing {
        Some(_) => Some(back_up(path, applied_before.iter().max().copied().unwrap_or(0)).await?),
        None => None,
    };
    let pool = connect_read_write(path).await?;
    let result = match target {
        Some(t) => MIGRATOR.run_to(t, &pool).await,
        None => MIGRATOR.run(&pool).await,
    };
    pool.close().await;
    result.map_err(|source| StoreError::Migrate {
        path: path.to_path_buf(),
        backup: backup
            .as_ref()
            .map_or_else(|| "none".to_owned(), |b| b.display().to_string()),
        source,
    })?;
    Ok(MigrationReport {
        applied: to_apply,
        backup,
    })
}

/// Copies the database to `<db>.bak-<version>` with `VACUUM INTO` (a consistent copy
/// even in WAL mode). An existing backup of that name is never overwritten.
async fn back_up(path: &Path, version: i64) -> Result<PathBuf, StoreError> {
    let mut backup = PathBuf::from(format!("{}.bak-{version}", path.display()));
    let mut n = 1;
    while backup.exists() {
        backup = PathBuf::from(format!("{}.bak-{version}.{n}", path.display()));
        n += 1;
    }
    let pool = connect_read_only(path).await?;
    let result = sqlx::query("VACUUM INTO ?1")
        .bind(backup.display().to_string())
        .execute(&pool)
        .await;
    pool.close().await;
    result.map_err(|source| StoreError::Backup {
        path: path.to_path_buf(),
        backup: backup.clone(),
        source,
    })?;
    Ok(backup)
}
