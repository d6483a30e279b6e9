//! The database a run uses: the home's SQLite file (the default), another SQLite file,
//! or a PostgreSQL database shared by several server processes (`--database URL`,
//! `SMALLEBOT_DATABASE_URL`). Chosen here, in the host; everything else talks to the
//! repository traits.

use std::sync::Arc;

use smallebot_agent::assembly::Home;
use smallebot_core::entities::UserAccount;
use smallebot_core::repository::{RepoResult, Store};
use smallebot_core::tasks::TaskStore;
use smallebot_infrastructure::{DatabaseLocation, FileTaskStore, SqliteStore};
use smallebot_postgres::{PgStore, PgTaskStore};

use crate::error::HostError;

/// An open database.
#[derive(Debug, Clone)]
pub enum Database {
    /// A SQLite file (task lists are files under the home).
    Sqlite(SqliteStore),
    /// A PostgreSQL database (task lists are rows in it).
    Postgres(PgStore),
}

impl Database {
    /// Opens the database of `home` — [`Home::database_location`] when given, else the
    /// home's `smallebot.db` — applying pending migrations (a SQLite file is backed up
    /// first, and the backup is named on standard error).
    ///
    /// # Errors
    /// An unknown URL scheme, an unreachable server, a schema newer than this build.
    pub async fn open(home: &Home) -> Result<Self, HostError> {
        let location = match home.database_location() {
            Some(given) => DatabaseLocation::parse(given)?,
            None => DatabaseLocation::Sqlite(home.database()),
        };
        match location {
            DatabaseLocation::Sqlite(path) => {
                let (store, report) = SqliteStore::open_and_report(&path).await?;
                if let Some(backup) = &report.backup {
                    errln!(
                        "upgraded the database schema ({} migration(s)); the previous version \
                         is kept at {}",
                        report.applied.len(),
                        backup.display()
                    );
                }
                Ok(Self::Sqlite(store))
            }
            DatabaseLocation::Postgres(url) => {
                let (store, applied) = PgStore::connect_and_report(&url).await?;
                if !applied.is_empty() {
                    errln!(
                        "upgraded the database schema of {} ({} migration(s))",
                        store.url(),
                        applied.len()
                    );
                }
                Ok(Self::Postgres(store))
            }
        }
    }

    /// The repositories.
    #[must_use]
    pub fn store(&self) -> Arc<dyn Store> {
        match self {
            Self::Sqlite(store) => Arc::new(store.clone()),
            Self::Postgres(store) => Arc::new(store.clone()),
        }
    }

    /// Where task lists are kept: files under the home beside SQLite, the database's
    /// table with PostgreSQL (so every server process sees the same plan).
    #[must_use]
    pub fn task_store(&self, home: &Home) -> Arc<dyn TaskStore> {
        match self {
            Self::Sqlite(_) => Arc::new(FileTaskStore::new(home.tasks_dir())),
            Self::Postgres(store) => Arc::new(PgTaskStore::new(store.clone())),
        }
    }

    /// Closes every connection.
    pub async fn close(&self) {
        match self {
            Self::Sqlite(store) => store.close().await,
            Self::Postgres(store) => store.close().await,
        }
    }

    /// Adds user `name` with the SHA-256 hex digest of its token, an admin when `admin`.
    ///
    /// # Errors
    /// A name that exists; storage failures.
    pub async fn add_user(&self, name: &str, token_sha256: &str, admin: bool) -> RepoResult<()> {
        match self {
            Self::Sqlite(store) => store.add_user(name, token_sha256, admin).await,
            Self::Postgres(store) => store.add_user(name, token_sha256, admin).await,
        }
    }

    /// Sets (or clears, with `None`) user `name`'s own monthly budget in picos; whether
    /// there was such a user.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn set_user_budget(&self, name: &str, budget: Option<i64>) -> RepoResult<bool> {
        match self {
            Self::Sqlite(store) => store.set_user_budget(name, budget).await,
            Self::Postgres(store) => store.set_user_budget(name, budget).await,
        }
    }

    /// Every user with their role and budget, sorted by name.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_accounts(&self) -> RepoResult<Vec<UserAccount>> {
        match self {
            Self::Sqlite(store) => store.user_accounts().await,
            Self::Postgres(store) => store.user_accounts().await,
        }
    }

    /// User `name` with their role and budget, if there is one.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_account(&self, name: &str) -> RepoResult<Option<UserAccount>> {
        match self {
            Self::Sqlite(store) => store.user_account(name).await,
            Self::Postgres(store) => store.user_account(name).await,
        }
    }

    /// Removes user `name`; whether there was one.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn remove_user(&self, name: &str) -> RepoResult<bool> {
        match self {
            Self::Sqlite(store) => store.remove_user(name).await,
            Self::Postgres(store) => store.remove_user(name).await,
        }
    }

    /// Every user name, sorted.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_names(&self) -> RepoResult<Vec<String>> {
        match self {
            Self::Sqlite(store) => store.user_names().await,
            Self::Postgres(store) => store.user_names().await,
        }
    }

    /// The user whose token has this SHA-256 hex digest.
    ///
    /// # Errors
    /// Storage failures.
    pub async fn user_by_token_sha256(&self, digest: &str) -> RepoResult<Option<String>> {
        match self {
            Self::Sqlite(store) => store.user_by_token_sha256(digest).await,
            Self::Postgres(store) => store.user_by_token_sha256(digest).await,
        }
    }
}

#[async_trait::async_trait]
impl smallebot_application::metering::MonthlyBudgets for Database {
    async fn monthly_budget(&self, user: &str) -> RepoResult<Option<i64>> {
        Ok(self
            .user_account(user)
            .await?
            .and_then(|a| a.budget_monthly))
    }
}
