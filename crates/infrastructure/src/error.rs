//! Errors of opening and migrating a database, and how SQLite's errors map to the
//! repository errors.

use std::path::PathBuf;

use smallebot_core::RepositoryError;

/// Why a database could not be opened or migrated. Nothing was changed in the file
/// unless the message says so.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The file exists but is not an SQLite database.
    #[error(
        "{path} is not an SQLite database (its header is wrong); the file was left untouched. \
         Move the file away, or use another home (smallebot: --home DIR or SMALLEBOT_HOME)."
    )]
    NotADatabase {
        /// The file.
        path: PathBuf,
    },
    /// The database was written by a newer SmallEBot.
    #[error(
        "{path} has schema version {found}, newer than this build knows (latest {known}); \
         nothing was changed. Upgrade smallebot to open it."
    )]
    SchemaTooNew {
        /// The file.
        path: PathBuf,
        /// The highest version recorded in the database.
        found: i64,
        /// The highest version this build embeds.
        known: i64,
    },
    /// A previous migration was interrupted half way.
    #[error(
        "{path}: migration {version} was left unfinished by an earlier run; restore the \
         backup {path}.bak-* made before it, or repair the database by hand"
    )]
    DirtyMigration {
        /// The file.
        path: PathBuf,
        /// The unfinished migration.
        version: i64,
    },
    /// SQLite refused to open or read the file.
    #[error("cannot open database {path}: {source}")]
    Open {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: sqlx::Error,
    },
    /// Copying the database before a migration failed; the migration did not run.
    #[error("cannot back up {path} to {backup} before migrating (nothing was changed): {source}")]
    Backup {
        /// The database.
        path: PathBuf,
        /// The intended copy.
        backup: PathBuf,
        /// What SQLite said.
        #[source]
        source: sqlx::Error,
    },
    /// A migration failed; the backup made before it is named.
    #[error("migrating {path} failed (backup: {backup}): {source}")]
    Migrate {
        /// The database.
        path: PathBuf,
        /// The copy made before migrating, or "none" for a new database.
        backup: String,
        /// What sqlx said.
        #[source]
        source: sqlx::migrate::MigrateError,
    },
    /// A read-only open found no database.
    #[error("there is no database at {path} yet (nothing has been stored in this home)")]
    NoDatabase {
        /// The file.
        path: PathBuf,
    },
    /// A read-only open found a schema older than this build's.
    #[error(
        "{path} needs {pending} migration(s) (from {version} on) before this build can read \
         it, and cannot be written here; run 'smallebot migrate' as someone who may write it"
    )]
    ReadOnlyNeedsMigration {
        /// The file.
        path: PathBuf,
        /// The first pending migration.
        version: i64,
        /// How many are pending.
        pending: usize,
    },
    /// A backup was not written (nothing at its destination was changed).
    #[error("backup: {path} {reason}")]
    BackupRefused {
        /// The path the refusal is about.
        path: PathBuf,
        /// Why, and what to do.
        reason: String,
    },
    /// A folder given to restore from is not a backup this build reads.
    #[error("{path} is not a backup written by smallebot backup: {reason}")]
    NotABackup {
        /// The folder.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// A restore was refused before anything was changed.
    #[error("restore refused, nothing was changed: {path} {reason}")]
    RestoreRefused {
        /// The backup or home the refusal is about.
        path: PathBuf,
        /// Why, and what to do.
        reason: String,
    },
    /// SQLite failed while copying or checking a database for a backup or restore.
    #[error("backup or restore of {path}: {source}")]
    Snapshot {
        /// The database.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// A file-system operation failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was attempted.
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

impl StoreError {
    /// Whether opening for writing failed only because the database, its directory or
    /// the file system may not be written: the store can still be opened with
    /// [`SqliteStore::open_read_only`](crate::SqliteStore::open_read_only).
    #[must_use]
    pub fn is_read_only(&self) -> bool {
        match self {
            Self::Open { source, .. } | Self::Backup { source, .. } => is_read_only_error(source),
            Self::Migrate {
                source: sqlx::migrate::MigrateError::Execute(source),
                ..
            } => is_read_only_error(source),
            Self::Io { source, .. } => matches!(
                source.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ),
            _ => false,
        }
    }
}

/// Whether SQLite refused because something may not be written (`SQLITE_READONLY`
/// and its extended codes) or the file could not be opened as asked (`SQLITE_CANTOPEN`,
/// what a missing `-shm` in a read-only directory gives on some systems).
pub(crate) fn is_read_only_error(err: &sqlx::Error) -> bool {
    const SQLITE_READONLY: i64 = 8;
    const SQLITE_CANTOPEN: i64 = 14;
    let sqlx::Error::Database(db) = err else {
        return false;
    };
    db.code()
        .and_then(|code| code.parse::<i64>().ok())
        .is_some_and(|code| matches!(code & 0xff, SQLITE_READONLY | SQLITE_CANTOPEN))
}

/// Maps an SQLite error to a repository error that says what was being done.
pub(crate) fn sqlite(action: &'static str) -> impl FnOnce(rusqlite::Error) -> RepositoryError {
    move |err| RepositoryError::Storage {
        action,
        message: err.to_string(),
    }
}

/// Whether a `UNIQUE` or `PRIMARY KEY` constraint refused a row.
pub(crate) fn is_unique_violation(err: &rusqlite::Error) -> bool {
    matches!(
        err,
        rusqlite::Error::SqliteFailure(e, _)
            if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
    )
}

/// Whether another connection held a lock (`SQLITE_BUSY`, `SQLITE_LOCKED`).
pub(crate) fn is_busy(err: &rusqlite::Error) -> bool {
    matches!(
        err,
        rusqlite::Error::SqliteFailure(e, _)
            if matches!(
                e.code,
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
            )
    )
}
