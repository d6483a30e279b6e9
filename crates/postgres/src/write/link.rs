//! The writer's connection ([`Link`]) and how a job answers ([`Reply`]): what the
//! writer (`writer.rs`), its job dispatch (`write.rs`) and every kind of job use, so
//! it stands apart from all of them.

use std::time::Instant;

use smallebot_core::RepositoryError;
use smallebot_core::repository::RepoResult;
use sqlx::{Connection as _, PgConnection, PgPool};
use tokio::sync::oneshot;

use crate::connect::PING_AFTER_IDLE;
use crate::history::cache::RowsCache;
use crate::tx::{storage, unreachable};

/// Where a job's answer goes.
pub(crate) type Reply<T> = oneshot::Sender<RepoResult<T>>;

/// The writer's connection: taken out of the pool when needed (so it never pays the
/// pool's check-in round trip), pinged after sitting idle, dropped after the server
/// was out of reach (the next job takes a new one).
#[derive(Debug)]
pub(super) struct Link {
    pub(super) pool: PgPool,
    pub(super) conn: Option<PgConnection>,
    pub(super) used: Instant,
    /// When taking a connection last failed (the server out of reach).
    pub(super) down_since: Option<Instant>,
    /// The rows the store keeps between reads, brought along with the writes that
    /// add or complete rows.
    pub(super) cache: RowsCache,
}

/// After taking a connection failed (which waits the pool's acquire timeout), jobs fail
/// at once for this long instead of each waiting that timeout again in turn: during an
/// outage a write fails within one acquire timeout however many are queued.
const DOWN_FOR: std::time::Duration = std::time::Duration::from_secs(1);

impl Link {
    pub(super) fn new(pool: PgPool, cache: RowsCache) -> Self {
        Self {
            pool,
            conn: None,
            used: Instant::now(),
            down_since: None,
            cache,
        }
    }

    /// The connection, ready for a statement.
    pub(super) async fn get(&mut self) -> Result<&mut PgConnection, sqlx::Error> {
        if let Some(conn) = self.conn.as_mut()
            && self.used.elapsed() >= PING_AFTER_IDLE
            && conn.ping().await.is_err()
        {
            self.conn = None;
        }
        self.used = Instant::now();
        let conn = match self.conn.take() {
            Some(conn) => conn,
            None => {
                if self.down_since.is_some_and(|at| at.elapsed() < DOWN_FOR) {
                    return Err(sqlx::Error::PoolTimedOut);
                }
                let acquired = self.pool.acquire().await;
                self.down_since = acquired.is_err().then(Instant::now);
                let mut conn = acquired?.detach();
                // The writer's statements are the same few with different values: plan
                // each once (a custom plan per execution costs more than it saves).
                sqlx::query("SET plan_cache_mode = force_generic_plan")
                    .execute(&mut conn)
                    .await?;
                conn
            }
        };
        Ok(self.conn.insert(conn))
    }

    /// Forgets the connection when `err` says the server is out of reach.
    pub(super) fn check(&mut self, err: &sqlx::Error) {
        if unreachable(err) {
            self.conn = None;
        }
    }

    /// After a job that may have run a transaction: gives the connection up when
    /// `answer` says the server is out of reach, and ends a transaction the job left
    /// without committing when it failed.
    pub(super) async fn settle<T, E>(&mut self, answer: &Result<T, E>, lost: bool) {
        if lost {
            self.conn = None;
        } else if answer.is_err() {
            self.release().await;
        }
    }

    /// Rolls back now what a job left open (sqlx only queues the `ROLLBACK` of a
    /// transaction dropped without committing, to be sent with the connection's next
    /// statement): its locks are not held until the next job, however long that takes,
    /// while other processes wait on them.
    pub(super) async fn release(&mut self) {
        if let Some(conn) = self.conn.as_mut()
            && conn.ping().await.is_err()
        {
            self.conn = None;
        }
    }

    /// Closes the connection.
    #[cfg(test)]
    pub(super) async fn close(mut self) {
        self.disconnect().await;
    }

    /// Closes the connection (the next job takes a new one).
    pub(super) async fn disconnect(&mut self) {
        if let Some(conn) = self.conn.take() {
            let _ = conn.close().await;
        }
    }
}

/// Maps an error of a statement of `action` on the link, giving the connection up when
/// the server is out of reach.
pub(super) fn failed(link: &mut Link, action: &'static str, err: sqlx::Error) -> RepositoryError {
    link.check(&err);
    storage(action)(err)
}

/// Whether an answer says the server is out of reach.
pub(super) fn lost<T>(answer: &RepoResult<T>) -> bool {
    matches!(answer, Err(RepositoryError::Unavailable { .. }))
}
