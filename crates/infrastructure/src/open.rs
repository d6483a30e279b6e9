//! Opening connections to the database file: the options every connection shares
//! (foreign keys, busy timeout, WAL for writing), the sqlx pools of migrations and
//! tooling, and the rusqlite connections of the store's writer and read pool.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::error::{StoreError, is_read_only_error};

/// How long a connection waits for another writer before giving up.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(30);
/// Connections in the sqlx pool (tooling and the reads that use it).
pub(crate) const MAX_CONNECTIONS: u32 = 8;
/// How long a read waits for a pool connection before it fails as unavailable
/// (instead of sqlx's 30 s).
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// The first bytes of every SQLite database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";
/// The prepared statements kept per rusqlite connection (every statement of every
/// write and read kind).
const STATEMENT_CACHE: usize = 96;

/// How a rusqlite connection opens the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpenMode {
    /// Read and write (the database exists: migrations created it).
    ReadWrite,
    /// Read only.
    ReadOnly,
    /// Read only, `immutable`: the file is read as it is, without locks (a WAL
    /// database in a directory we may not write).
    Immutable,
}

/// Opens a rusqlite connection to `path` in `mode`: foreign keys on, `busy_timeout`,
/// a statement cache for the store's statements.
pub(crate) fn connection(
    path: &Path,
    mode: OpenMode,
    busy_timeout: Duration,
) -> Result<Connection, rusqlite::Error> {
    let conn = match mode {
        OpenMode::ReadWrite => Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?,
        OpenMode::ReadOnly => Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?,
        OpenMode::Immutable => {
            let uri = format!("file:{}?immutable=1", uri_path(path));
            Connection::open_with_flags(
                uri,
                OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_URI
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?
        }
    };
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    conn.busy_timeout(busy_timeout)?;
    conn.pragma_update(None, "foreign_keys", true)?;
    if mode == OpenMode::ReadWrite {
        conn.pragma_update(None, "synchronous", "NORMAL")?;
    }
    Ok(conn)
}

/// `path` for a `file:` URI: `%`, `?` and `#` escaped.
fn uri_path(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
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
pub(crate) async fn read_only_pool(
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

/// The read-write connection options: WAL, `foreign_keys=ON`, busy timeout, created
/// if missing.
pub(crate) fn read_write_options(path: &Path) -> Result<SqliteConnectOptions, StoreError> {
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
pub(crate) async fn connect_pool(
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
