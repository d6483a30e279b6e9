//! Small helpers shared by the repository implementations, and the write transaction.

mod batch;
mod batch_sql;
mod direct;
mod writer;

use smallebot_core::RepositoryError;
use smallebot_core::time::{Timestamp, format_timestamp};

use crate::database::SqliteStore;

pub(crate) use batch::{Job, JobKind};
pub(crate) use direct::{DirectError, DirectRow, OpenMode, direct_storage, run_script};
pub(crate) use writer::{ReadConnection, WriteConnection, WriteTx, WriterGuard, WriterOpenError};

/// Maps an sqlx error to a repository error that says what was being done: no
/// connection within the pool's acquire timeout (or a closed pool) is
/// [`RepositoryError::Unavailable`].
pub(crate) fn storage(action: &'static str) -> impl FnOnce(sqlx::Error) -> RepositoryError {
    move |err| {
        let message = err.to_string();
        if matches!(err, sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed) {
            RepositoryError::Unavailable { action, message }
        } else {
            RepositoryError::Storage { action, message }
        }
    }
}

/// Now, truncated to the stored millisecond precision, and its stored text.
pub(crate) fn now() -> (Timestamp, String) {
    use chrono::SubsecRound;
    let at = chrono::Utc::now().trunc_subsecs(3);
    let text = format_timestamp(&at);
    (at, text)
}

impl SqliteStore {
    /// A write transaction that takes the write lock up front (`BEGIN IMMEDIATE`), so
    /// concurrent writers queue on the busy timeout instead of failing on upgrade. It
    /// runs on the store's write connection (so never wait for another write of this
    /// store while holding it); dropped without [`commit`](WriteTx::commit), it is
    /// rolled back.
    pub(crate) async fn write_tx(&self, action: &'static str) -> Result<WriteTx, RepositoryError> {
        WriteTx::begin(self.writer().lock().await.map_err(storage(action))?)
            .await
            .map_err(storage(action))
    }

    /// Runs one statement on the write connection (autocommit), like every write of
    /// this store: a write on a pool connection would contend with the write connection
    /// for SQLite's lock, and a loser waits in SQLite's busy handler, which sleeps in
    /// steps of up to 100 ms instead of queueing.
    pub(crate) async fn write_one(
        &self,
        action: &'static str,
        query: sqlx::query::Query<'_, sqlx::Sqlite, sqlx::sqlite::SqliteArguments>,
    ) -> Result<sqlx::sqlite::SqliteQueryResult, RepositoryError> {
        let mut writer = self.writer().lock().await.map_err(storage(action))?;
        query.execute(&mut *writer).await.map_err(storage(action))
    }

    /// A connection for a short read: the write connection when no write is using it
    /// (its page cache is warm and it costs no pool round trips), else one of the pool.
    /// Hold it for the read only: while it is the write connection, this store's
    /// writes wait for it.
    pub(crate) async fn reader(
        &self,
        action: &'static str,
    ) -> Result<ReadConnection, RepositoryError> {
        match self.writer().try_lock().await {
            Some(writer) => Ok(ReadConnection::Writer(writer)),
            None => self
                .pool()
                .acquire()
                .await
                .map(ReadConnection::Pool)
                .map_err(storage(action)),
        }
    }
}
