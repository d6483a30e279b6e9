//! The upkeep of a long-running service (`serve`): turns whose process stopped marked
//! interrupted, and uploads never sent deleted once expired, for as long as it runs.

use std::sync::Arc;
use std::time::Duration;

use super::ConversationService;

/// How often turns whose process stopped are looked for (another server on the same
/// database, killed mid-turn).
pub const SWEEP_EVERY: Duration = Duration::from_secs(5);

/// How many [`SWEEP_EVERY`] ticks apart expired uploads are looked for (a minute).
pub const UPLOAD_SWEEP_TICKS: u32 = 12;

impl ConversationService {
    /// Marks running turns whose process is gone `interrupted`, every
    /// [`SWEEP_EVERY`], and deletes uploads left unsent past agent.json's
    /// `pendingExpirySeconds` every [`UPLOAD_SWEEP_TICKS`] of them (and once at the
    /// start); never returns (abort the task to stop it). What it did, and what failed,
    /// is logged.
    pub async fn sweep_forever(self: Arc<Self>) {
        let mut ticks = tokio::time::interval(SWEEP_EVERY);
        ticks.tick().await; // the start already recovered
        let mut tick = 0u32;
        loop {
            if tick.is_multiple_of(UPLOAD_SWEEP_TICKS) {
                match self.delete_expired_uploads().await {
                    Ok(0) => {}
                    Ok(n) => tracing::info!("{n} upload(s) never sent expired and were deleted"),
                    Err(error) => tracing::warn!(%error, "cannot delete expired uploads"),
                }
            }
            tick = tick.wrapping_add(1);
            ticks.tick().await;
            match self.recover_interrupted_turns().await {
                Ok(0) => {}
                Ok(n) => {
                    tracing::info!("{n} turn(s) of a process that stopped were marked interrupted")
                }
                Err(error) => tracing::warn!(%error, "cannot look for abandoned turns"),
            }
        }
    }
}
