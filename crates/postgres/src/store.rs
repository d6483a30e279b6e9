//! Connecting to PostgreSQL.

use sqlx::PgPool;

use crate::connect::{MAX_CONNECTIONS, connect_pool};
use crate::error::PgStoreError;
use crate::history::cache::RowsCache;
use crate::migrate;
use crate::read_link::ReadLink;
use smallebot_core::repository::RepoResult;

use crate::write::{Edit, Job, Reply, Writer};

/// The PostgreSQL store: implements every repository trait of `smallebot-core`.
/// Cloning is cheap (clones share the pool and the writer).
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
    /// The task a turn's writes go through (see `write.rs`).
    writer: Writer,
    /// The own connection of the reads on a turn's path (see `read_link.rs`).
    reader: ReadLink,
    /// The URL without its password.
    url: String,
    /// The rows in the context of recently read conversations (see `history/cache.rs`).
    rows_cache: RowsCache,
}

impl PgStore {
    /// Connects to `url` (`postgres://user[:password]@host[:port]/database`) and applies
    /// pending migrations.
    ///
    /// # Errors
    /// See [`PgStoreError`]: an unreachable server, a schema newer than this build.
    pub async fn connect(url: &str) -> Result<Self, PgStoreError> {
        Ok(Self::connect_and_report(url).await?.0)
    }

    /// Like [`PgStore::connect`], also returning the migrations it applied.
    ///
    /// # Errors
    /// See [`PgStoreError`].
    pub async fn connect_and_report(url: &str) -> Result<(Self, Vec<(i64, String)>), PgStoreError> {
        let (pool, shown) = connect_pool(url, MAX_CONNECTIONS).await?;
        let applied = match migrate::apply(&pool, &shown).await {
            Ok(applied) => applied,
            Err(err) => {
                pool.close().await;
                return Err(err);
            }
        };
        let rows_cache = RowsCache::default();
        let writer = Writer::start(pool.clone(), rows_cache.clone());
        let reader = ReadLink::new(pool.clone());
        Ok((
            Self {
                pool,
                writer,
                reader,
                url: shown,
                rows_cache,
            },
            applied,
        ))
    }

    /// The connection pool (for tooling and tests that inspect the database).
    #[must_use]
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// The database URL without its password.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The rows kept between reads.
    pub(crate) fn rows_cache(&self) -> &RowsCache {
        &self.rows_cache
    }

    /// The own read connection of the reads on a turn's path.
    pub(crate) fn reader(&self) -> &ReadLink {
        &self.reader
    }

    /// The writer (see `write.rs`).
    pub(crate) fn writer(&self) -> &Writer {
        &self.writer
    }

    /// Sends one of the rarer writes to the writer and waits for its answer.
    pub(crate) async fn edit<T>(
        &self,
        action: &'static str,
        edit: impl FnOnce(Reply<T>) -> Edit,
    ) -> RepoResult<T> {
        self.writer
            .submit(action, |reply| Job::Edit(edit(reply)))
            .await
    }

    /// Closes every connection (the writer's after what is queued is written).
    pub async fn close(&self) {
        self.writer.close().await;
        self.reader.close().await;
        self.pool.close().await;
    }
}
