//! What a home's `agent.json` says about checkpoints: the size limits of a capture,
//! extra ignore rules and how long contents are kept.

use crate::limits::Limits;

/// How long and how much checkpoint content a home keeps; contents beyond either are
/// pruned oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Contents older than this many days are pruned.
    pub max_age_days: u64,
    /// The most checkpoint content a home keeps (bytes).
    pub max_total_bytes: u64,
}

impl Retention {
    /// 30 days.
    pub const DEFAULT_MAX_AGE_DAYS: u64 = 30;
    /// 1 GiB a home.
    pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 1024 * 1024 * 1024;
}

impl Default for Retention {
    fn default() -> Self {
        Self {
            max_age_days: Self::DEFAULT_MAX_AGE_DAYS,
            max_total_bytes: Self::DEFAULT_MAX_TOTAL_BYTES,
        }
    }
}

/// The checkpoint settings of a home.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckpointSettings {
    /// The size limits of one capture.
    pub limits: Limits,
    /// `.gitignore`-style rules applied after the defaults and before the workspace's
    /// own `.gitignore`.
    pub ignore: Vec<String>,
    /// How long and how much content is kept.
    pub retention: Retention,
}
