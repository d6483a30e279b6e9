//! Leases of running turns: which process runs a turn, and when it last said so.

use serde::{Deserialize, Serialize};

use crate::time::Timestamp;

/// A process that runs turns: its id on its host, and when it started (so a later
/// process that reuses the id is not mistaken for it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaseOwner {
    /// The process id.
    pub pid: u32,
    /// The host name.
    pub host: String,
    /// When the process started.
    pub started_at: Timestamp,
}

impl std::fmt::Display for LeaseOwner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "process {} on {}", self.pid, self.host)
    }
}

/// A running turn's lease as stored: its owner and its last heartbeat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnLease {
    /// Who runs the turn.
    pub owner: LeaseOwner,
    /// When the owner last renewed the lease.
    pub heartbeat_at: Timestamp,
}
