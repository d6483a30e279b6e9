//! The store's read pool: a few rusqlite connections, each used by one read at a
//! time, on the calling thread (a read of a turn's rows takes tens of microseconds;
//! a trip to another thread would cost more). Reads never wait for the writer: in WAL
//! mode they see the last commit.
//!
//! Their busy timeout is zero: should a read meet a lock (another process recovering
//! the WAL), it runs again on tokio's blocking pool with the store's busy timeout.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::repository::RepoResult;
use tracing::Instrument;

use crate::error::sqlite;
use crate::open::{self, OpenMode};

/// Idle connections kept open; more open while reads overlap, and close after.
const IDLE_CONNECTIONS: usize = 4;

struct Inner {
    idle: Mutex<Vec<Connection>>,
    path: PathBuf,
    mode: OpenMode,
    busy_timeout: Duration,
    closed: std::sync::atomic::AtomicBool,
}

/// The read connections, shared by every clone of the store.
#[derive(Clone)]
pub(crate) struct ReadPool {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for ReadPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadPool").finish_non_exhaustive()
    }
}

impl ReadPool {
    /// A pool for `path` in `mode`, with one connection opened (so a file that cannot
    /// be read fails here).
    pub(crate) fn open(
        path: &Path,
        mode: OpenMode,
        busy_timeout: Duration,
    ) -> Result<Self, rusqlite::Error> {
        let first = open::connection(path, mode, Duration::ZERO)?;
        Ok(Self {
            inner: Arc::new(Inner {
                idle: Mutex::new(vec![first]),
                path: path.to_path_buf(),
                mode,
                busy_timeout,
                closed: std::sync::atomic::AtomicBool::new(false),
            }),
        })
    }

    /// Runs `work` on a read connection: here, or — when it met a lock — again on
    /// the blocking pool, waiting up to the busy timeout; timed in a `store` span (its
    /// `operation` the read's name) for the metrics.
    pub(crate) async fn read<T, F>(&self, action: &'static str, work: F) -> RepoResult<T>
    where
        T: Send + 'static,
        F: Fn(&Connection) -> RepoResult<T> + Send + 'static,
    {
        self.read_here(action, work)
            .instrument(tracing::debug_span!("store", operation = action))
            .await
    }

    async fn read_here<T, F>(&self, action: &'static str, work: F) -> RepoResult<T>
    where
        T: Send + 'static,
        F: Fn(&Connection) -> RepoResult<T> + Send + 'static,
    {
        let conn = self.take(action)?;
        let result = work(&conn);
        if !result.as_ref().is_err_and(is_lock_error) {
            self.give_back(conn);
            return result;
        }
        let pool = self.clone();
        tokio::task::spawn_blocking(move || {
            conn.busy_timeout(pool.inner.busy_timeout)
                .map_err(sqlite(action))?;
            let result = work(&conn);
            conn.busy_timeout(Duration::ZERO).map_err(sqlite(action))?;
            pool.give_back(conn);
            result
        })
        .await
        .map_err(|join| RepositoryError::Unavailable {
            action,
            message: join.to_string(),
        })?
    }

    fn take(&self, action: &'static str) -> RepoResult<Connection> {
        if self.inner.closed.load(std::sync::atomic::Ordering::Acquire) {
            return Err(RepositoryError::Unavailable {
                action,
                message: "the store is closed".into(),
            });
        }
        let idle = self
            .inner
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        match idle {
            Some(conn) => Ok(conn),
            None => open::connection(&self.inner.path, self.inner.mode, Duration::ZERO)
                .map_err(sqlite(action)),
        }
    }

    fn give_back(&self, conn: Connection) {
        if self.inner.closed.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        let mut idle = self
            .inner
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE_CONNECTIONS {
            idle.push(conn);
        }
    }

    /// Closes the idle connections; later reads fail as unavailable.
    pub(crate) fn close(&self) {
        self.inner
            .closed
            .store(true, std::sync::atomic::Ordering::Release);
        self.inner
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

/// Whether a read failed on another connection's lock.
fn is_lock_error(err: &RepositoryError) -> bool {
    matches!(err, RepositoryError::Storage { message, .. }
        if message.contains("database is locked") || message.contains("database table is locked"))
}
