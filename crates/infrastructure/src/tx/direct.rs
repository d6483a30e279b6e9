//! The write connection's statements run on the calling thread.
//!
//! sqlx runs each SQLite connection on a thread of its own: every statement is a trip
//! to that thread and back, two thread wake-ups that cost 50–120 µs on a small VM —
//! more than SQLite needs for the statement itself (a turn's step commits in ~25 µs).
//! The writes and reads of a running turn (start, steps, tool results, the
//! conversation and its rows) therefore run here instead: on a second connection to
//! the same file (rusqlite), used only by whoever holds the store's write lock, so it
//! never contends with the sqlx write connection for SQLite's lock.
//!
//! Its busy timeout is zero: should another *process* hold the write lock, a statement
//! fails at once with `SQLITE_BUSY` instead of blocking the async thread, and the same
//! work runs again on tokio's blocking pool with the store's busy timeout.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::types::Value;
use rusqlite::{Connection, OpenFlags};
use smallebot_core::RepositoryError;

use crate::rows::{Columns, corrupt};

/// The prepared statements kept per connection (every statement of every write kind).
const STATEMENT_CACHE: usize = 64;

/// What went wrong running statements here.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DirectError {
    /// SQLite refused or failed.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// The write connection is closed, or a queued write could not run.
    #[error("{0}")]
    Unavailable(String),
}

impl DirectError {
    /// Whether a `UNIQUE` or `PRIMARY KEY` constraint refused a row.
    pub(crate) fn is_unique_violation(&self) -> bool {
        matches!(
            self,
            Self::Sqlite(rusqlite::Error::SqliteFailure(e, _))
                if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    || e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
        )
    }

    /// Whether another connection held a lock (`SQLITE_BUSY`, `SQLITE_LOCKED`).
    fn is_busy(&self) -> bool {
        matches!(
            self,
            Self::Sqlite(rusqlite::Error::SqliteFailure(e, _))
                if matches!(
                    e.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                )
        )
    }
}

/// Maps a [`DirectError`] to a repository error that says what was being done.
pub(crate) fn direct_storage(action: &'static str) -> impl FnOnce(DirectError) -> RepositoryError {
    move |err| RepositoryError::Storage {
        action,
        message: err.to_string(),
    }
}

/// How the connection opens the file.
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

/// The connection; `None` once closed.
#[derive(Debug, Clone)]
pub(crate) struct DirectConnection {
    conn: Arc<Mutex<Option<Connection>>>,
    busy_timeout: Duration,
}

impl DirectConnection {
    /// Opens the file at `path` with `setup` run once (the `TEMP` triggers and tables
    /// of the write connection).
    pub(crate) fn open(
        path: &std::path::Path,
        mode: OpenMode,
        busy_timeout: Duration,
        setup: &[&str],
    ) -> Result<Self, DirectError> {
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
        for sql in setup {
            conn.execute_batch(sql)?;
        }
        conn.busy_timeout(Duration::ZERO)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(Some(conn))),
            busy_timeout,
        })
    }

    /// Runs `work` on the connection: here, or — when another process holds a lock —
    /// again on the blocking pool, waiting up to the busy timeout. Callers hold the
    /// store's write lock, so nothing else of this process uses the connection.
    pub(crate) async fn run<T, F>(&self, work: F) -> Result<T, DirectError>
    where
        T: Send + 'static,
        F: Fn(&mut Connection) -> Result<T, DirectError> + Send + 'static,
    {
        // The mutex is free unless a write that met another process's lock is still
        // waiting on the blocking pool (its caller gone): then wait there too.
        let inline = match self.conn.try_lock() {
            Ok(mut slot) => Some(match slot.as_mut() {
                Some(conn) => work(conn),
                None => Err(closed()),
            }),
            Err(_) => None,
        };
        match inline {
            None => self.blocking(work).await,
            Some(Err(err)) if err.is_busy() => self.blocking(work).await,
            Some(done) => done,
        }
    }

    /// Runs `work` on the blocking pool, waiting up to the busy timeout for locks.
    async fn blocking<T, F>(&self, work: F) -> Result<T, DirectError>
    where
        T: Send + 'static,
        F: Fn(&mut Connection) -> Result<T, DirectError> + Send + 'static,
    {
        let this = self.clone();
        tokio::task::spawn_blocking(move || {
            this.with(|conn| {
                conn.busy_timeout(this.busy_timeout)?;
                let result = work(conn);
                conn.busy_timeout(Duration::ZERO)?;
                result
            })
        })
        .await
        .map_err(|join| DirectError::Unavailable(join.to_string()))?
    }

    fn with<T>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, DirectError>,
    ) -> Result<T, DirectError> {
        let mut slot = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        match slot.as_mut() {
            Some(conn) => work(conn),
            None => Err(closed()),
        }
    }

    /// Closes the connection; later uses fail.
    pub(crate) fn close(&self) {
        let closed = self
            .conn
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(conn) = closed
            && let Err((_, err)) = conn.close()
        {
            tracing::warn!(%err, "closing the database connection failed");
        }
    }
}

fn closed() -> DirectError {
    DirectError::Unavailable("the database connection is closed".into())
}

/// `path` for a `file:` URI: `%`, `?` and `#` escaped.
fn uri_path(path: &std::path::Path) -> String {
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

/// A row a statement returned: its columns' names and values.
#[derive(Debug, Clone)]
pub(crate) struct DirectRow {
    names: Arc<[String]>,
    values: Vec<Value>,
}

impl DirectRow {
    fn value(&self, column: &str) -> Result<&Value, RepositoryError> {
        self.names
            .iter()
            .position(|name| name == column)
            .and_then(|i| self.values.get(i))
            .ok_or_else(|| corrupt(column, "no such column in the row"))
    }

    /// The value at `index`.
    pub(crate) fn at(&self, index: usize) -> Result<&Value, RepositoryError> {
        self.values
            .get(index)
            .ok_or_else(|| corrupt("row", format!("no column {index}")))
    }

    /// The text at `index`.
    pub(crate) fn text_at(&self, index: usize) -> Result<String, RepositoryError> {
        match self.at(index)? {
            Value::Text(text) => Ok(text.clone()),
            other => Err(corrupt(
                "row",
                format!("column {index} is {other:?}, not text"),
            )),
        }
    }

    /// The integer at `index`.
    pub(crate) fn int_at(&self, index: usize) -> Result<i64, RepositoryError> {
        match self.at(index)? {
            Value::Integer(n) => Ok(*n),
            other => Err(corrupt(
                "row",
                format!("column {index} is {other:?}, not an integer"),
            )),
        }
    }
}

impl Columns for DirectRow {
    fn opt_text(&self, column: &str) -> Result<Option<String>, RepositoryError> {
        match self.value(column)? {
            Value::Null => Ok(None),
            Value::Text(text) => Ok(Some(text.clone())),
            other => Err(corrupt(column, format!("{other:?} where text is stored"))),
        }
    }

    fn opt_int(&self, column: &str) -> Result<Option<i64>, RepositoryError> {
        match self.value(column)? {
            Value::Null => Ok(None),
            Value::Integer(n) => Ok(Some(*n)),
            other => Err(corrupt(
                column,
                format!("{other:?} where an integer is stored"),
            )),
        }
    }
}

/// The statements of `sql`, split at the semicolons outside quotes (the store's own
/// SQL: no comments, no trigger bodies).
fn statements(sql: &str) -> impl Iterator<Item = &str> {
    let mut pieces = Vec::new();
    let mut quote = None;
    let mut start = 0;
    for (i, c) in sql.char_indices() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ';') => {
                pieces.push(&sql[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&sql[start..]);
    pieces
        .into_iter()
        .map(str::trim)
        .filter(|piece| !piece.is_empty())
}

/// Runs every statement of `sql` (bound to `params`, by position, as far as each
/// takes parameters) and returns the rows of all of them, in order. Written as
/// `BEGIN IMMEDIATE; …; COMMIT`, it is one transaction: should a statement fail, the
/// transaction is rolled back before the error returns.
pub(crate) fn run_script(
    conn: &mut Connection,
    sql: &str,
    params: &[&dyn rusqlite::ToSql],
) -> Result<Vec<DirectRow>, DirectError> {
    if !conn.is_autocommit() {
        // A transaction left open by a failed ROLLBACK: end it before anything else.
        conn.execute_batch("ROLLBACK")?;
    }
    let result = run_statements(conn, sql, params);
    if result.is_err()
        && !conn.is_autocommit()
        && let Err(err) = conn.execute_batch("ROLLBACK")
    {
        tracing::warn!(%err, "ROLLBACK after a failed statement failed");
    }
    result
}

fn run_statements(
    conn: &Connection,
    sql: &str,
    params: &[&dyn rusqlite::ToSql],
) -> Result<Vec<DirectRow>, DirectError> {
    let mut out = Vec::new();
    for piece in statements(sql) {
        let mut stmt = conn.prepare_cached(piece)?;
        let taken = stmt.parameter_count();
        for (i, param) in params.iter().take(taken).enumerate() {
            stmt.raw_bind_parameter(i + 1, param)?;
        }
        let names: Arc<[String]> = stmt.column_names().into_iter().map(str::to_owned).collect();
        let width = names.len();
        let mut rows = stmt.raw_query();
        while let Some(row) = rows.next()? {
            let mut values = Vec::with_capacity(width);
            for i in 0..width {
                values.push(row.get::<_, Value>(i)?);
            }
            out.push(DirectRow {
                names: Arc::clone(&names),
                values,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "direct_tests.rs"]
mod tests;
