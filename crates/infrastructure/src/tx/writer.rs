//! The store's write connection: every write of this process goes through one
//! connection, one at a time.
//!
//! SQLite lets one writer in at a time anyway; a pool connection per write only added
//! cost: sqlx runs each SQLite connection on its own thread, so every statement is a
//! round trip between threads, and acquiring and releasing a pool connection adds
//! more. On the write connection a transaction is `BEGIN IMMEDIATE` … `COMMIT` sent as
//! plain statements, and a whole small write can be one round trip ([`WriterGuard::batch`]).
//!
//! A transaction left open — its future dropped mid-way, or an error before `COMMIT` —
//! is rolled back before the connection is used again: at once by a task spawned on
//! drop (so other processes are not kept waiting for the write lock), and in any case
//! by the next user of the connection.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use sqlx::pool::PoolConnection;
use sqlx::query::Query;
use sqlx::sqlite::{SqliteArguments, SqliteConnectOptions, SqliteRow};
use sqlx::{Connection as _, Sqlite, SqliteConnection};
use tokio::sync::{Mutex, OwnedMappedMutexGuard, OwnedMutexGuard};

/// The open connection and whether a transaction may be open on it.
#[derive(Debug)]
struct Live {
    conn: SqliteConnection,
    /// Set before `BEGIN`, cleared once `COMMIT` or `ROLLBACK` is known to have run.
    in_tx: bool,
}

impl Live {
    /// Ends a transaction that may still be open. A connection whose `ROLLBACK` fails
    /// for another reason than "no transaction" is replaced (closing it ends its
    /// transaction).
    async fn roll_back(&mut self, options: &SqliteConnectOptions) -> Result<(), sqlx::Error> {
        match sqlx::raw_sql("ROLLBACK").execute(&mut self.conn).await {
            Ok(_) => {}
            Err(err) if no_transaction(&err) => {}
            Err(err) => {
                tracing::warn!(%err, "ROLLBACK failed; reopening the write connection");
                let fresh = SqliteConnection::connect_with(options).await?;
                let broken = std::mem::replace(&mut self.conn, fresh);
                let _ = broken.close().await;
            }
        }
        self.in_tx = false;
        Ok(())
    }
}

/// Whether `err` is SQLite saying there was no transaction to end.
fn no_transaction(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.message().contains("no transaction is active"))
}

/// `None` once closed.
#[derive(Debug)]
struct State {
    live: Option<Live>,
}

/// The write connection, shared by every clone of the store.
#[derive(Debug, Clone)]
pub(crate) struct WriteConnection {
    options: SqliteConnectOptions,
    state: Arc<Mutex<State>>,
}

impl WriteConnection {
    /// Opens the connection with `options`.
    pub(crate) async fn connect(options: SqliteConnectOptions) -> Result<Self, sqlx::Error> {
        let conn = SqliteConnection::connect_with(&options).await?;
        let live = Some(Live { conn, in_tx: false });
        Ok(Self {
            options,
            state: Arc::new(Mutex::new(State { live })),
        })
    }

    /// Waits for the connection.
    pub(crate) async fn lock(&self) -> Result<WriterGuard, sqlx::Error> {
        let state = Arc::clone(&self.state).lock_owned().await;
        self.ready(state).await
    }

    /// The connection if nobody uses it now.
    pub(crate) async fn try_lock(&self) -> Option<WriterGuard> {
        let state = Arc::clone(&self.state).try_lock_owned().ok()?;
        self.ready(state).await.ok()
    }

    async fn ready(&self, state: OwnedMutexGuard<State>) -> Result<WriterGuard, sqlx::Error> {
        let mut live = OwnedMutexGuard::try_map(state, |s| s.live.as_mut())
            .map_err(|_| sqlx::Error::PoolClosed)?;
        if live.in_tx {
            live.roll_back(&self.options).await?;
        }
        Ok(WriterGuard {
            live,
            owner: self.clone(),
        })
    }

    /// Closes the connection (after the current user is done); later uses fail.
    pub(crate) async fn close(&self) {
        let mut state = self.state.lock().await;
        if let Some(mut live) = state.live.take() {
            if live.in_tx {
                let _ = live.roll_back(&self.options).await;
            }
            let _ = live.conn.close().await;
        }
    }
}

/// Exclusive use of the write connection; derefs to it.
#[derive(Debug)]
pub(crate) struct WriterGuard {
    live: OwnedMappedMutexGuard<State, Live>,
    owner: WriteConnection,
}

impl WriterGuard {
    /// Runs `query` — statements that begin with `BEGIN IMMEDIATE` and end with
    /// `COMMIT` — in one round trip, returning the rows they return. On failure the
    /// transaction is rolled back before the error is returned.
    pub(crate) async fn batch(
        &mut self,
        query: Query<'_, Sqlite, SqliteArguments>,
    ) -> Result<Vec<SqliteRow>, sqlx::Error> {
        self.live.in_tx = true;
        match query.fetch_all(&mut self.live.conn).await {
            Ok(rows) => {
                self.live.in_tx = false;
                Ok(rows)
            }
            Err(err) => {
                if let Err(rollback) = self.live.roll_back(&self.owner.options).await {
                    tracing::warn!(%rollback, "cannot roll back a failed write");
                }
                Err(err)
            }
        }
    }
}

impl Deref for WriterGuard {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        &self.live.conn
    }
}

impl DerefMut for WriterGuard {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.live.conn
    }
}

impl Drop for WriterGuard {
    fn drop(&mut self) {
        if !self.live.in_tx {
            return;
        }
        // Left mid-transaction: roll back as soon as the lock is free (the next user
        // would do it too, but another process may be waiting for the write lock).
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let owner = self.owner.clone();
            runtime.spawn(async move {
                let _ = owner.lock().await;
            });
        }
    }
}

/// A write transaction on the write connection (`BEGIN IMMEDIATE`); derefs to the
/// connection. Dropped without [`WriteTx::commit`], it is rolled back.
#[derive(Debug)]
pub(crate) struct WriteTx {
    writer: WriterGuard,
}

impl WriteTx {
    /// Begins the transaction.
    pub(crate) async fn begin(mut writer: WriterGuard) -> Result<Self, sqlx::Error> {
        writer.live.in_tx = true;
        let begun = sqlx::raw_sql("BEGIN IMMEDIATE")
            .execute(&mut writer.live.conn)
            .await;
        if begun.is_err() {
            // A failed BEGIN opened nothing.
            writer.live.in_tx = false;
        }
        begun.map(|_| Self { writer })
    }

    /// Commits the transaction.
    pub(crate) async fn commit(mut self) -> Result<(), sqlx::Error> {
        sqlx::raw_sql("COMMIT")
            .execute(&mut self.writer.live.conn)
            .await?;
        self.writer.live.in_tx = false;
        Ok(())
    }
}

impl Deref for WriteTx {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        &self.writer
    }
}

impl DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        &mut self.writer
    }
}

/// A connection for a read: the write connection or one of the pool.
#[derive(Debug)]
pub(crate) enum Connection {
    /// The write connection, unused by writes meanwhile.
    Writer(WriterGuard),
    /// A pool connection.
    Pool(PoolConnection<Sqlite>),
}

impl Deref for Connection {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        match self {
            Self::Writer(writer) => writer,
            Self::Pool(conn) => conn,
        }
    }
}

impl DerefMut for Connection {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        match self {
            Self::Writer(writer) => writer,
            Self::Pool(conn) => conn,
        }
    }
}
