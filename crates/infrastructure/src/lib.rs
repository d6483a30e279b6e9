//! # smallebot-infrastructure
//!
//! SQLite storage for SmallEBot on sqlx: [`SqliteStore`] implements every repository
//! trait of `smallebot-core` (conversations, turns, messages, tool calls, think blocks,
//! full-text search), with WAL, foreign keys and a busy timeout. Every write is a typed
//! job of one writer that owns the write connection and commits what queued together
//! in one transaction, each job in a savepoint of its own; reads come from a small
//! pool of read connections. Both run their prepared statements on the calling thread
//! (rusqlite); sqlx applies the migrations and serves tooling.
//!
//! The schema lives in the workspace's `migrations/` folder and is embedded in the
//! binary. [`migrate_database`] applies pending migrations, first copying an existing
//! database to `<db>.bak-<version>`; [`migration_status`] lists applied and pending ones
//! without changing anything. Opening a file that is not an SQLite database, or one whose
//! schema is newer than this build knows, fails with a [`StoreError`] that names the path
//! and leaves the file untouched.
//!
//! [`backup`] writes a running home's consistent copy (SQLite's online backup API) and
//! restores one after checking it.
//!
//! [`FileTaskStore`] keeps each conversation's task list as a JSON file (atomic writes,
//! corrupt files preserved).

mod attachments;
pub mod backup;
mod checkpoints;
mod content_files;
mod conversations;
mod database;
mod error;
mod fts_query;
mod grants;
mod history;
mod hook_runs;
mod location;
mod mcp_credentials;
mod migrate;
mod migrate_lock;
mod open;
mod queries;
mod read;
mod rows;
mod search;
mod search_index;
mod task_store;
mod time;
mod turns;
mod usage;
mod users;
mod wal_checkpoints;
mod write;

pub use database::SqliteStore;
pub use error::StoreError;
pub use fts_query::escape_fts_query;
pub use location::{DatabaseLocation, LocationError};
pub use migrate::{
    MigrationReport, MigrationStatus, SchemaVersion, migrate_database, migrate_database_to,
    migration_status,
};
pub use search_index::INDEX_BATCH_ROWS;
pub use task_store::FileTaskStore;
