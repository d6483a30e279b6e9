//! (being written)
/// Task lists in PostgreSQL.
#[derive(Debug, Clone)]
pub struct PgTaskStore;
