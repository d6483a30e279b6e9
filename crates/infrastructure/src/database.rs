//! Opening the SQLite database.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::error::StoreError;
use crate::migrate::{MigrationReport, migrate_database, migration_status};
use crate::tx::{OpenMode, WriteConnection, WriterOpenError};

/// How long a connection waits for another writer before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections in the pool (SQLite serializes writers; readers run in parallel in WAL).
const MAX_CONNECTIONS: u32 = 8;
/// How long a read waits for a pool connection before it fails as unavailable
/// (instead of sqlx's 30 s).
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// The first bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// The SQLite store: implements every repository trait of `smallebot-core`.
///
/// Writes go through one connection, one at a time (SQLite admits one writer at a
/// time anyway); reads use that connection when it is free, else the pool. Cloning is
/// cheap (clones share the connections).
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    writer: WriteConnection,
    path: PathBuf,
    /// Opened with [`SqliteStore::open_read_only`].
    read_only: bool,
}

impl SqliteStore {
    /// Opens (creating if missing) the database at `path` and applies pending
    /// migrations, backing up an existing database first.
    ///
    /// # Errors
    /// See [`StoreError`]: a file that is not a database or has a newer schema is
    /// refused untouched.
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        Ok(Self::open_and_report(path).await?.0)
    }

    /// Like [`SqliteStore::open`], also returning what the migration step did.
    ///
    /// # Errors
    /// See [`StoreError`].
    pub async fn open_and_report(path: &Path) -> Result<(Self, MigrationReport), StoreError> {
        let report = migrate_database(path).await?;
        let options = read_write_options(path)?;
        let pool = connect_pool(path, &options).await?;
        let writer = WriteConnection::connect(options, OpenMode::ReadWrite, BUSY_TIMEOUT)
            .await
            .map_err(|source| StoreError::Open {
                path: path.to_path_buf(),
                source: writer_error(source),
            })?;
        Ok((
            Self {
                pool,
                writer,
                path: path.to_path_buf(),
                read_only: false,
            },
            report,
        ))
    }

    /// Opens an existing database for reading only (for commands that only show what
    /// is stored, on a read-only home or file): no migration, no WAL switch; a
    /// database in a directory we may not write is read `immutable`. Every write
    /// fails with SQLite's read-only error.
    ///
    /// # Errors
    /// [`StoreError::NoDatabase`] when the file does not exist,
    /// [`StoreError::ReadOnlyNeedsMigration`] when its schema is older than this
    /// build's, and the refusals of [`SqliteStore::open`].
    pub async fn open_read_only(path: &Path) -> Result<Self, StoreError> {
        let status = migration_status(path).await?;
        if status.applied.is_empty() && !check_sqlite_header(path)? {
            return Err(StoreError::NoDatabase {
                path: path.to_path_buf(),
            });
        }
        if let Some(first) = status.pending.first() {
            return Err(StoreError::ReadOnlyNeedsMigration {
                path: path.to_path_buf(),
                version: first.version,
                pending: status.pending.len(),
            });
        }
        let (pool, options, mode) = read_only_pool(path, MAX_CONNECTIONS).await?;
        let writer = match WriteConnection::connect(options, mode, BUSY_TIMEOUT).await {
            Ok(writer) => writer,
            Err(source) => {
                pool.close().await;
                return Err(StoreError::Open {
                    path: path.to_path_buf(),
                    source: writer_error(source),
                });
            }
        };
        Ok(Self {
            pool,
            writer,
            path: path.to_path_buf(),
            read_only: true,
        })
    }

    /// Whether it was opened with [`SqliteStore::open_read_only`] (every write fails).
    #[must_use]
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// The connection pool (for tooling and tests that inspect the database).
    #[must_use]
    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// The write connection.
    pub(crate) fn writer(&self) -> &WriteConnection {
        &self.writer
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Closes every connection (checkpointing the WAL).
    pub async fn close(&self) {
        self.writer.close().await;
        self.pool.close().await;
    }
}

/// The error of opening the write connections, as sqlx's (what [`StoreError::Open`]
/// carries).
fn writer_error(err: WriterOpenError) -> sqlx::Error {
    match err {
        WriterOpenError::Sqlx(err) => err,
        WriterOpenError::Direct(err) => sqlx::Error::Configuration(Box::new(err)),
    }
}

/// Refuses a file that exists, is not empty and does not start with the SQLite header.
pub(crate) fn check_sqlite_header(path: &Path) -> Result<bool, StoreError> {
    use std::io::Read;
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(source) => {
            return Err(StoreError::Io {
                action: "cannot read",
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let mut header = [0u8; 16];
    let mut filled = 0;
    while filled < header.len() {
        match file.read(&mut header[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(source) => {
                return Err(StoreError::Io {
                    action: "cannot read",
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
    }
    if filled == 0 {
        return Ok(false); // an empty file is a new database
    }
    if filled < header.len() || &header != SQLITE_HEADER {
        return Err(StoreError::NotADatabase {
            path: path.to_path_buf(),
        });
    }
    Ok(true)
}

fn base_options(path: &Path) -> Result<SqliteConnectOptions, StoreError> {
    let url = format!("sqlite://{}", path.display());
    SqliteConnectOptions::from_str(&url)
        .map(|o| {
            o.filename(path)
                .busy_timeout(BUSY_TIMEOUT)
                .foreign_keys(true)
        })
        .map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })
}

/// A single read-only connection that changes nothing in the file (no WAL switch).
pub(crate) async fn connect_read_only(path: &Path) -> Result<SqlitePool, StoreError> {
    Ok(read_only_pool(path, 1).await?.0)
}

/// A read-only pool of `connections`, the options it was opened with and how. A WAL
/// database whose directory we may not write (SQLite cannot create the `-shm` index
/// beside it) is opened `immutable`: read as it is on disk, without any locking.
async fn read_only_pool(
    path: &Path,
    connections: u32,
) -> Result<(SqlitePool, SqliteConnectOptions, OpenMode), StoreError> {
    let options = base_options(path)?.read_only(true).create_if_missing(false);
    let open_err = |source| StoreError::Open {
        path: path.to_path_buf(),
        source,
    };
    let connect = async |options: &SqliteConnectOptions| -> Result<SqlitePool, sqlx::Error> {
        let pool = SqlitePoolOptions::new()
            .max_connections(connections)
            // As for the read-write pool: a local connection needs no ping before use.
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        // Opening is lazy: the first read is what needs the WAL index.
        if let Err(err) = sqlx::query("SELECT count(*) FROM sqlite_master")
            .fetch_one(&pool)
            .await
        {
            pool.close().await;
            return Err(err);
        }
        Ok(pool)
    };
    match connect(&options).await {
        Ok(pool) => Ok((pool, options, OpenMode::ReadOnly)),
        Err(err) if is_read_only_error(&err) => {
            let immutable = options.immutable(true);
            let pool = connect(&immutable).await.map_err(open_err)?;
            Ok((pool, immutable, OpenMode::Immutable))
        }
        Err(err) => Err(open_err(err)),
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

/// The read-write connection options: WAL, `foreign_keys=ON`, busy timeout, created
/// if missing.
fn read_write_options(path: &Path) -> Result<SqliteConnectOptions, StoreError> {
    Ok(base_options(path)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal))
}

/// The read-write pool: WAL, `foreign_keys=ON`, busy timeout, created if missing.
pub(crate) async fn connect_read_write(path: &Path) -> Result<SqlitePool, StoreError> {
    connect_pool(path, &read_write_options(path)?).await
}

/// Creates the directory of the database at `path` if missing.
pub(crate) fn create_parent_dir(path: &Path) -> Result<(), StoreError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| StoreError::Io {
            action: "cannot create the directory of",
            path: path.to_path_buf(),
            source,
        })?;
    }
    Ok(())
}

/// The read-write pool with `options`, creating the database's directory if missing.
async fn connect_pool(
    path: &Path,
    options: &SqliteConnectOptions,
) -> Result<SqlitePool, StoreError> {
    create_parent_dir(path)?;
    SqlitePoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        // A local SQLite connection cannot drop like a network one; pinging it before
        // every use only cost a round trip to its thread (it is still tested when
        // returned to the pool).
        .test_before_acquire(false)
        .connect_with(options.clone())
        .await
        .map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })
}
