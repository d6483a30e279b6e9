//! The SQLite store: its connections, opened and closed.

use std::path::{Path, PathBuf};

use sqlx::SqlitePool;

use crate::content_files::ContentFiles;
use crate::error::StoreError;
use crate::migrate::{MigrationReport, migrate_database, migration_status};
use crate::open::{
    BUSY_TIMEOUT, MAX_CONNECTIONS, OpenMode, check_sqlite_header, connect_pool, read_only_pool,
    read_write_options,
};
use crate::read::ReadPool;
use crate::write::{Write, Writer};

/// The SQLite store: implements every repository trait of `smallebot-core`.
///
/// Every write is a typed job of the one writer (`write.rs`), which owns the write
/// connection and commits what queued together; reads use a small pool of read
/// connections (`read.rs`). The sqlx pool serves migrations and tooling. Cloning is
/// cheap (clones share the connections).
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    writer: Writer,
    readers: ReadPool,
    path: PathBuf,
    /// Where attachment content is kept (beside the database).
    files: ContentFiles,
    /// Where checkpoint contents are kept (beside the database).
    checkpoint_files: ContentFiles,
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
        let (writer, readers) = match connections(path, OpenMode::ReadWrite) {
            Ok(both) => both,
            Err(err) => {
                pool.close().await;
                return Err(err);
            }
        };
        Ok((
            Self {
                pool,
                writer,
                readers,
                path: path.to_path_buf(),
                files: ContentFiles::beside(path),
                checkpoint_files: ContentFiles::checkpoints_beside(path),
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
        let (pool, _, mode) = read_only_pool(path, MAX_CONNECTIONS).await?;
        let (writer, readers) = match connections(path, mode) {
            Ok(both) => both,
            Err(err) => {
                pool.close().await;
                return Err(err);
            }
        };
        Ok(Self {
            pool,
            writer,
            readers,
            path: path.to_path_buf(),
            files: ContentFiles::beside(path),
            checkpoint_files: ContentFiles::checkpoints_beside(path),
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

    /// The writer: every write of the store is one of its jobs.
    pub(crate) fn writer(&self) -> &Writer {
        &self.writer
    }

    /// The read connections.
    pub(crate) fn readers(&self) -> &ReadPool {
        &self.readers
    }

    /// Where attachment content is kept.
    pub(crate) fn content_files(&self) -> &ContentFiles {
        &self.files
    }

    /// Where checkpoint contents are kept.
    pub(crate) fn checkpoint_files(&self) -> &ContentFiles {
        &self.checkpoint_files
    }

    /// Removes the content of `sha256s` no attachment uses any more, after the commit
    /// that deleted their rows. A failure is logged: the delete stands, and a leftover
    /// file is harmless.
    pub(crate) async fn sweep_contents(&self, sha256s: Vec<String>) {
        if sha256s.is_empty() {
            return;
        }
        let files = self.files.clone();
        let swept = self
            .writer
            .run(|reply| Write::SweepContents {
                files,
                sha256s,
                reply,
            })
            .await;
        if let Err(err) = swept {
            tracing::warn!(%err, "removing unused attachment content failed");
        }
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Closes every connection (checkpointing the WAL).
    pub async fn close(&self) {
        self.writer.close().await;
        self.readers.close();
        self.pool.close().await;
    }
}

/// The writer and the read pool of the database at `path`, opened in `mode`.
fn connections(path: &Path, mode: OpenMode) -> Result<(Writer, ReadPool), StoreError> {
    let open_err = |err: rusqlite::Error| StoreError::Open {
        path: path.to_path_buf(),
        source: sqlx::Error::Configuration(Box::new(err)),
    };
    let writer = Writer::open(path, mode, BUSY_TIMEOUT).map_err(open_err)?;
    let readers = ReadPool::open(path, mode, BUSY_TIMEOUT).map_err(open_err)?;
    Ok((writer, readers))
}
