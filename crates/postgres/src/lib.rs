//! # smallebot-postgres
//!
//! PostgreSQL storage for SmallEBot, for teams whose several `smallebot serve`
//! processes share one database. [`PgStore`] implements every repository trait of
//! `smallebot-core` with the same meaning as the SQLite store (the workspace's contract
//! tests run against both); [`PgTaskStore`] keeps task lists in a table.
//!
//! What PostgreSQL does here that SQLite cannot:
//! - writers of one conversation queue on its row lock (`UPDATE … RETURNING last_seq`),
//!   so `seq` has neither gaps nor duplicates across processes;
//! - a partial unique index admits one running turn per conversation;
//! - search uses generated `tsvector` columns with GIN indexes; text and query are split
//!   into words the way SQLite's FTS5 splits them (any user text is a valid query);
//! - task lists are rows updated with optimistic concurrency;
//! - every write (a turn's start, steps, tool results, end and heartbeats; the rarer
//!   edits, undo, compression, conversations, users, task lists) and the
//!   notifications to the other processes go through one writer per store, which owns
//!   a connection and drains what is queued into as few statements as it can (the
//!   steps of several turns in one statement), on the task of whoever finds it free;
//!   reads use the pool;
//! - the rows in a conversation's context are kept in memory between turns and
//!   checked against the conversation's version (moved by every write of its rows, in
//!   any process) in the same statement that would read them, so a turn's history is
//!   read from the database only when another writer changed it.
//!
//! The schema is in this crate's `migrations/` folder and embedded in the binary;
//! [`PgStore::connect`] applies pending migrations and refuses a schema newer than the
//! build knows.

mod attachment_rows;
mod attachments;
mod broadcast;
mod checkpoints;
mod connect;
mod conversations;
mod error;
mod fetch;
mod grants;
mod history;
mod hook_runs;
mod mcp_credentials;
mod migrate;
mod prepared_step;
mod read_link;
mod rows;
mod search;
mod steps;
mod store;
mod task_store;
mod turns;
mod tx;
mod usage;
mod users;
mod write;

pub use broadcast::{PgBroadcast, PgInbox};
pub use error::{PgStoreError, redact_url};
pub use migrate::{PgMigrationReport, PgMigrationStatus, pg_migrate, pg_migration_status};
pub use store::PgStore;
pub use task_store::PgTaskStore;
