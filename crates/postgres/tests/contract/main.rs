//! The store contract: every case runs on SQLite (a real file) and on PostgreSQL (a
//! throwaway cluster) with the same assertions, so the two stores keep the same
//! promises. One test binary with a module per repository concern (one link instead of
//! one per file).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod backends;

mod answer_versions;
mod attachments;
mod checkpoint_retention;
mod concurrency;
mod conversations;
mod file_changes;
mod grants;
mod hook_runs;
mod mcp_credentials;
mod provisional_counts;
mod rewrite_guards;
mod rows;
mod rows_around;
mod search;
mod search_depth;
mod steps;
mod task_store;
mod turn_start;
mod turns;
mod undo;
mod upload_quotas;
mod usage;
mod users;
mod words;
