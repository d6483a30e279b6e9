//! The PostgreSQL schema's migrations: embedded from `migrations/`, applied on connect,
//! refused when the database is newer than this build.
//!
//! Several processes starting at once apply them once: each takes an advisory lock
//! ([`MIGRATION_LOCK`]) on its own connection, then reads what is pending and applies
//! it. The one that got the lock first applies everything; the others find nothing
//! pending once they get it, so only the process that migrated reports migrations.

use sqlx::{Connection as _, PgConnection, PgPool};

use crate::error::PgStoreError;

// `MIGRATOR`: the migrations of `migrations/`, embedded at build time (`build.rs`).
include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// The advisory lock held while reading what is pending and applying it (a key of its
/// own: sqlx's lock, taken inside, is another one).
const MIGRATION_LOCK: &str = "smallebot:migrations";

/// Applied and pending migrations of a PostgreSQL database, as `version description`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgMigrationStatus {
    /// Applied, oldest first.
    pub applied: Vec<(i64, String)>,
    /// Known to this build but not applied yet, oldest first.
    pub pending: Vec<(i64, String)>,
}

impl std::fmt::Display for PgMigrationStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (version, description) in &self.applied {
            writeln!(f, "applied  {version:04} {description}")?;
        }
        for (version, description) in &self.pending {
            writeln!(f, "pending  {version:04} {description}")?;
        }
        if self.pending.is_empty() {
            write!(f, "up to date")
        } else {
            write!(f, "{} pending", self.pending.len())
        }
    }
}

fn known() -> Vec<(i64, String)> {
    MIGRATOR
        .iter()
        .filter(|m| m.migration_type.is_up_migration())
        .map(|m| (m.version, m.description.to_string()))
        .collect()
}

/// The versions recorded in the database, with whether each finished; refuses a
/// database newer than this build or with an unfinished migration.
async fn recorded(conn: &mut PgConnection, url: &str) -> Result<Vec<i64>, PgStoreError> {
    let failed = |source: sqlx::Error| PgStoreError::Migrate {
        url: url.to_owned(),
        message: source.to_string(),
    };
    let exists: bool = sqlx::query_scalar("SELECT to_regclass('_sqlx_migrations') IS NOT NULL")
        .fetch_one(&mut *conn)
        .await
        .map_err(failed)?;
    if !exists {
        return Ok(Vec::new());
    }
    let rows: Vec<(i64, bool)> =
        sqlx::query_as("SELECT version, success FROM _sqlx_migrations ORDER BY version")
            .fetch_all(&mut *conn)
            .await
            .map_err(failed)?;
    let latest = known().last().map_or(0, |(v, _)| *v);
    if let Some((found, _)) = rows.iter().filter(|(v, _)| *v > latest).max() {
        return Err(PgStoreError::SchemaTooNew {
            url: url.to_owned(),
            found: *found,
            known: latest,
        });
    }
    if let Some((version, _)) = rows.iter().find(|(_, ok)| !ok) {
        return Err(PgStoreError::DirtyMigration {
            url: url.to_owned(),
            version: *version,
        });
    }
    Ok(rows.into_iter().map(|(v, _)| v).collect())
}

/// What is applied and what is pending, changing nothing.
///
/// # Errors
/// [`PgStoreError::SchemaTooNew`], [`PgStoreError::DirtyMigration`], or a failed read.
async fn status(conn: &mut PgConnection, url: &str) -> Result<PgMigrationStatus, PgStoreError> {
    let applied = recorded(conn, url).await?;
    let (applied, pending) = known()
        .into_iter()
        .partition(|(version, _)| applied.contains(version));
    Ok(PgMigrationStatus { applied, pending })
}

/// Applies every pending migration under [`MIGRATION_LOCK`]; returns the ones this
/// call applied (none when another process applied them first).
///
/// # Errors
/// The refusals of [`status`], or a failing migration (rolled back).
pub(crate) async fn apply(pool: &PgPool, url: &str) -> Result<Vec<(i64, String)>, PgStoreError> {
    let failed = |source: sqlx::Error| PgStoreError::Migrate {
        url: url.to_owned(),
        message: source.to_string(),
    };
    // A connection of its own, closed at the end: the session's lock goes with it
    // whatever happens in between (it never goes back to the pool still held).
    let mut conn = pool.acquire().await.map_err(failed)?.detach();
    let applied = apply_locked(&mut conn, pool, url).await;
    let _ = conn.close().await;
    applied
}

/// [`apply`]: takes the lock on `conn`, reads what is pending there, and applies it
/// through `pool` (sqlx takes its own lock on another connection, which is free by
/// then: whoever holds it also holds ours).
async fn apply_locked(
    conn: &mut PgConnection,
    pool: &PgPool,
    url: &str,
) -> Result<Vec<(i64, String)>, PgStoreError> {
    sqlx::query("SELECT pg_advisory_lock(hashtextextended($1, 0))")
        .bind(MIGRATION_LOCK)
        .execute(&mut *conn)
        .await
        .map_err(|source| PgStoreError::Migrate {
            url: url.to_owned(),
            message: source.to_string(),
        })?;
    let before = status(conn, url).await?;
    if before.pending.is_empty() {
        return Ok(Vec::new());
    }
    MIGRATOR
        .run(pool)
        .await
        .map_err(|err| PgStoreError::Migrate {
            url: url.to_owned(),
            message: err.to_string(),
        })?;
    Ok(before.pending)
}

/// Connects to `url` and reports its migration status without changing anything.
///
/// # Errors
/// See [`PgStoreError`].
pub async fn pg_migration_status(url: &str) -> Result<PgMigrationStatus, PgStoreError> {
    let (pool, shown) = crate::connect::connect_pool(url, 1).await?;
    let result = match pool.acquire().await {
        Ok(mut conn) => status(&mut conn, &shown).await,
        Err(source) => Err(PgStoreError::Migrate {
            url: shown.clone(),
            message: source.to_string(),
        }),
    };
    pool.close().await;
    result
}

/// What [`pg_migrate`] did: the migrations applied to the database at `url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgMigrationReport {
    /// The database, password removed.
    pub url: String,
    /// Applied now, oldest first; empty when it was up to date.
    pub applied: Vec<(i64, String)>,
}

impl std::fmt::Display for PgMigrationReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = &self.url;
        if self.applied.is_empty() {
            return write!(f, "{url}: up to date: no pending migrations");
        }
        for (version, description) in &self.applied {
            writeln!(f, "{url}: applied {version:04} {description}")?;
        }
        write!(f, "{url}: {} migration(s) applied", self.applied.len())
    }
}

/// Connects to `url`, applies pending migrations (each in a transaction, under sqlx's
/// advisory lock, so servers running on the database are safe) and disconnects.
///
/// # Errors
/// See [`PgStoreError`].
pub async fn pg_migrate(url: &str) -> Result<PgMigrationReport, PgStoreError> {
    // Two connections: the one holding our lock and the one sqlx migrates on.
    let (pool, shown) = crate::connect::connect_pool(url, 2).await?;
    let applied = apply(&pool, &shown).await;
    pool.close().await;
    Ok(PgMigrationReport {
        url: shown,
        applied: applied?,
    })
}
