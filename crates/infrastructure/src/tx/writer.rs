//! The store's write connection: every write of this process goes through one lock,
//! one at a time. The lock guards sqlx's write connection and its direct twin
//! (`direct.rs`, statements on the calling thread: what a running turn writes);
//! whoever holds it may use either, so the two never contend for SQLite's lock.
//!
//! SQLite lets one writer in at a time anyway; a pool connection per write only added
//! cost: sqlx runs each SQLite connection on its own thread, so every statement is a
//! round trip between threads, and acquiring and releasing a pool connection adds
//! more. On the write connection a transaction is `BEGIN IMMEDIATE` … `COMMIT` sent as
//! plain statements, and an append is a single statement (`history/append.rs`, with
//! the connection's [`SEQ_TRIGGERS`]). A transaction whose statements need no answer in
//! between is sent as one multi-statement query
//! ([`WriterGuard::transaction_in_one_trip`]): one round trip instead of one per
//! statement.
//!
//! A transaction left open on sqlx's connection — its future dropped mid-way, or an
//! error before `COMMIT` — is rolled back before the connection is used again: at once by a task spawned on
//! drop (so other processes are not kept waiting for the write lock), and in any case
//! by the next user of the connection.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use sqlx::pool::PoolConnection;
use sqlx::query::Query;
use sqlx::sqlite::{SqliteArguments, SqliteConnectOptions, SqliteRow};
use sqlx::{Connection as _, Sqlite, SqliteConnection};
use tokio::sync::{Mutex, OwnedMappedMutexGuard, OwnedMutexGuard};

use super::batch::BatchQueue;
use super::batch_sql::BATCH_TABLES;
use super::direct::{DirectConnection, DirectError, OpenMode};
use crate::history::SEQ_TRIGGERS;

/// Opens a write connection: `options`, plus the connection's [`SEQ_TRIGGERS`] and
/// the `TEMP` tables of batched writes ([`BATCH_TABLES`]).
async fn open(options: &SqliteConnectOptions) -> Result<SqliteConnection, sqlx::Error> {
    let mut conn = SqliteConnection::connect_with(options).await?;
    sqlx::raw_sql(SEQ_TRIGGERS).execute(&mut conn).await?;
    sqlx::raw_sql(BATCH_TABLES).execute(&mut conn).await?;
    Ok(conn)
}

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
                let fresh = open(options).await?;
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
    options: Arc<SqliteConnectOptions>,
    state: Arc<Mutex<State>>,
    /// The second connection, for statements run on the calling thread (`direct.rs`);
    /// used only under the lock of `state`.
    direct: DirectConnection,
    /// Writes waiting to run together (`batch.rs`).
    batch: Arc<BatchQueue>,
}

impl WriteConnection {
    /// Opens the connection with `options`, and its direct twin in `mode`.
    pub(crate) async fn connect(
        options: SqliteConnectOptions,
        mode: OpenMode,
        busy_timeout: std::time::Duration,
    ) -> Result<Self, WriterOpenError> {
        let conn = open(&options).await?;
        let direct = DirectConnection::open(
            options.get_filename(),
            mode,
            busy_timeout,
            &[SEQ_TRIGGERS, BATCH_TABLES],
        )?;
        let live = Some(Live { conn, in_tx: false });
        Ok(Self {
            options: Arc::new(options),
            state: Arc::new(Mutex::new(State { live })),
            direct,
            batch: Arc::default(),
        })
    }

    /// The queue of batched writes.
    pub(super) fn batch(&self) -> &BatchQueue {
        &self.batch
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
        self.direct.close();
    }
}

/// Why the write connections did not open.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WriterOpenError {
    /// The sqlx connection.
    #[error(transparent)]
    Sqlx(#[from] sqlx::Error),
    /// The direct connection.
    #[error(transparent)]
    Direct(#[from] DirectError),
}

/// Exclusive use of the write connection; derefs to it.
#[derive(Debug)]
pub(crate) struct WriterGuard {
    live: OwnedMappedMutexGuard<State, Live>,
    owner: WriteConnection,
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

impl WriterGuard {
    /// Runs `work` on the direct connection (`direct.rs`) while this guard keeps every
    /// other user of the write connections out.
    pub(crate) async fn direct<T, F>(&self, work: F) -> Result<T, DirectError>
    where
        T: Send + 'static,
        F: Fn(&mut rusqlite::Connection) -> Result<T, DirectError> + Send + 'static,
    {
        self.owner.direct.run(work).await
    }

    /// Runs a whole transaction written as one multi-statement query
    /// (`BEGIN IMMEDIATE; …; COMMIT`) in one round trip to sqlx's SQLite thread, and
    /// returns the rows of all its statements. Should a statement fail, the statements
    /// after it (`COMMIT` too) do not run and the transaction is rolled back like any
    /// transaction left open.
    pub(crate) async fn transaction_in_one_trip(
        &mut self,
        query: Query<'_, Sqlite, SqliteArguments>,
    ) -> Result<Vec<SqliteRow>, sqlx::Error> {
        self.live.in_tx = true;
        let rows = query.fetch_all(&mut self.live.conn).await?;
        self.live.in_tx = false;
        Ok(rows)
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
pub(crate) enum ReadConnection {
    /// The write connection, unused by writes meanwhile.
    Writer(WriterGuard),
    /// A pool connection.
    Pool(PoolConnection<Sqlite>),
}

impl Deref for ReadConnection {
    type Target = SqliteConnection;

    fn deref(&self) -> &SqliteConnection {
        match self {
            Self::Writer(writer) => writer,
            Self::Pool(conn) => conn,
        }
    }
}

impl DerefMut for ReadConnection {
    fn deref_mut(&mut self) -> &mut SqliteConnection {
        match self {
            Self::Writer(writer) => writer,
            Self::Pool(conn) => conn,
        }
    }
}

#[cfg(test)]
mod tests {
    use smallebot_core::RepositoryError;
    use smallebot_core::entities::{NewMessage, NewToolCall, Role};
    use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};

    use crate::database::SqliteStore;

    async fn store() -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("t.db")).await.unwrap();
        (dir, store)
    }

    /// Takes and releases the write lock from a pool connection: fails (after the busy
    /// timeout) while a transaction is left open on the write connection.
    async fn write_lock_is_free(store: &SqliteStore) {
        let mut conn = store.pool().acquire().await.unwrap();
        sqlx::raw_sql("BEGIN IMMEDIATE; COMMIT")
            .execute(&mut *conn)
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_transaction_dropped_without_commit_is_rolled_back() {
        let (_dir, store) = store().await;
        let c = store.create_conversation("u", "t").await.unwrap();
        {
            let mut tx = store.write_tx("test").await.unwrap();
            sqlx::query("UPDATE conversations SET title = 'changed'")
                .execute(&mut *tx)
                .await
                .unwrap();
        }
        write_lock_is_free(&store).await;
        let read = store.get_conversation(c.id).await.unwrap().unwrap();
        assert_eq!(read.title, "t");
        let committed = store.write_tx("test").await.unwrap();
        committed.commit().await.unwrap();
    }

    #[tokio::test]
    async fn a_failed_append_changes_nothing_and_frees_the_connection() {
        let (_dir, store) = store().await;
        let c = store.create_conversation("u", "t").await.unwrap();
        let turn = store.start_turn(c.id, false).await.unwrap();
        let call = NewToolCall {
            conversation_id: c.id,
            turn_id: turn.id,
            call_id: "same".into(),
            tool_name: "T".into(),
            arguments: "{}".into(),
            token_count: 1,
        };
        let first = store.append_tool_call(&call).await.unwrap();
        let again = store.append_tool_call(&call).await.unwrap_err();
        assert!(matches!(again, RepositoryError::Conflict(_)), "{again}");
        write_lock_is_free(&store).await;
        // The failed append's seq was rolled back with it.
        let next = store
            .append_message(&NewMessage {
                conversation_id: c.id,
                turn_id: turn.id,
                role: Role::Assistant,
                content: "after".into(),
                token_count: 1,
            })
            .await
            .unwrap();
        assert_eq!(next.seq, first.seq + 1);
        let missing = store
            .append_message(&NewMessage {
                conversation_id: smallebot_core::ids::ConversationId::new(),
                turn_id: turn.id,
                role: Role::Assistant,
                content: "nowhere".into(),
                token_count: 1,
            })
            .await
            .unwrap_err();
        assert!(
            matches!(missing, RepositoryError::NotFound { .. }),
            "{missing}"
        );
    }
}
