//! Retention: checkpoint contents older than the age limit, or beyond the total size a
//! home keeps, are pruned oldest first; the changes that needed them are marked, so
//! that `conversations show` says so and a rewind names each path it cannot restore.
//!
//! A content's age is when it was last needed: the newest of when it was kept and when
//! a change naming it was stored, so a content a young checkpoint still names is kept
//! (contents are stored once per SHA-256 and shared). Which ones go is the pure rule
//! `smallebot_core::rules::retention::contents_to_prune`.

use smallebot_core::repository::CheckpointRepository;
use smallebot_core::rules::retention::contents_to_prune;
use smallebot_core::time::{Timestamp, format_timestamp};

use crate::error::CheckpointError;
use crate::settings::Retention;

/// What a prune removed (or, for a dry run, would remove), and what is left.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PruneReport {
    /// How many contents were (or would be) removed.
    pub removed: u64,
    /// Their bytes.
    pub removed_bytes: u64,
    /// How many contents are (or would be) left.
    pub left: u64,
    /// Their bytes.
    pub left_bytes: u64,
}

/// The reason a change whose content was pruned at `now` is marked with.
#[must_use]
pub fn pruned_reason(now: Timestamp, retention: Retention) -> String {
    format!(
        "its content was pruned on {} by checkpoint retention (older than {} days or \
         beyond {} bytes a home); it cannot be restored",
        format_timestamp(&now),
        retention.max_age_days,
        retention.max_total_bytes
    )
}

/// Prunes the checkpoint contents of `store` that `retention` does not keep at `now`;
/// with `dry_run`, only says what it would remove.
///
/// # Errors
/// [`CheckpointError::Repository`] when the store cannot list, mark or remove them.
pub async fn prune(
    store: &dyn CheckpointRepository,
    retention: Retention,
    now: Timestamp,
    dry_run: bool,
) -> Result<PruneReport, CheckpointError> {
    let kept = store.kept_checkpoint_contents().await?;
    let pruned = contents_to_prune(
        &kept,
        now,
        retention.max_age_days,
        retention.max_total_bytes,
    );
    let sum = |sizes: &mut dyn Iterator<Item = u64>| sizes.fold(0, u64::saturating_add);
    let total = sum(&mut kept.iter().map(|c| c.size));
    let removed_bytes = sum(&mut pruned.iter().map(|c| c.size));
    let report = PruneReport {
        removed: pruned.len() as u64,
        removed_bytes,
        left: (kept.len() - pruned.len()) as u64,
        left_bytes: total.saturating_sub(removed_bytes),
    };
    if !dry_run && !pruned.is_empty() {
        let digests: Vec<String> = pruned.into_iter().map(|c| c.sha256).collect();
        store
            .prune_checkpoint_contents(&digests, &pruned_reason(now, retention))
            .await?;
    }
    Ok(report)
}

/// [`prune`] at the present moment.
///
/// # Errors
/// As [`prune`].
pub async fn prune_now(
    store: &dyn CheckpointRepository,
    retention: Retention,
    dry_run: bool,
) -> Result<PruneReport, CheckpointError> {
    prune(store, retention, chrono::Utc::now(), dry_run).await
}

/// Prunes as `retention` says at `moment` (what is logged: "at start", "after a
/// turn") and logs what went; a failure is logged, not returned: neither starting nor
/// a turn is refused for it. How many contents went.
pub async fn prune_logged(
    store: &dyn CheckpointRepository,
    retention: Retention,
    moment: &'static str,
) -> u64 {
    match prune_now(store, retention, false).await {
        Ok(report) => {
            if report.removed > 0 {
                tracing::info!(
                    removed = report.removed,
                    bytes = report.removed_bytes,
                    moment,
                    "checkpoint contents pruned"
                );
            }
            report.removed
        }
        Err(err) => {
            tracing::warn!(%err, moment, "pruning checkpoint contents failed");
            0
        }
    }
}
