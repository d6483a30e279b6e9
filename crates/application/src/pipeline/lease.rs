//! Turn leases in the pipeline: the busy check across processes, the heartbeat of a
//! running turn, and recovery of turns whose owner is gone.

use std::sync::Arc;
use std::time::Duration;

use smallebot_core::RepositoryError;
use smallebot_core::entities::{LeaseOwner, Turn};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::Store;
use smallebot_core::rules::lease::lease_state;

use crate::error::PipelineError;
use crate::ports::ProcessProbe;

/// Who this service is, and how its leases are kept.
#[derive(Clone)]
pub struct LeaseSettings {
    /// This process (and agent) as the owner of the turns it runs.
    pub owner: LeaseOwner,
    /// How often a running turn renews its lease.
    pub heartbeat_every: Duration,
    /// A lease not renewed for this long is abandoned.
    pub stale_after: Duration,
    /// Tells whether a process id exists on this host.
    pub processes: Arc<dyn ProcessProbe>,
}

impl std::fmt::Debug for LeaseSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeaseSettings")
            .field("owner", &self.owner)
            .field("heartbeat_every", &self.heartbeat_every)
            .field("stale_after", &self.stale_after)
            .finish_non_exhaustive()
    }
}

impl LeaseSettings {
    /// Default heartbeat interval.
    pub const DEFAULT_HEARTBEAT_EVERY: Duration = Duration::from_secs(10);
    /// Default stale limit (several missed heartbeats).
    pub const DEFAULT_STALE_AFTER: Duration = Duration::from_secs(45);

    /// Leases owned by `owner`, checked with `processes`, with the default timings.
    #[must_use]
    pub fn new(owner: LeaseOwner, processes: Arc<dyn ProcessProbe>) -> Self {
        Self {
            owner,
            heartbeat_every: Self::DEFAULT_HEARTBEAT_EVERY,
            stale_after: Self::DEFAULT_STALE_AFTER,
            processes,
        }
    }

    /// Whether `turn` (a running one) is abandoned by its owner.
    pub(crate) fn abandoned(&self, turn: &Turn) -> bool {
        lease_state(
            turn.lease.as_ref(),
            &self.owner,
            chrono::Utc::now(),
            self.stale_after,
            |pid| self.processes.exists(pid),
        )
        .is_abandoned()
    }

    /// The busy error for a turn that runs elsewhere (or here).
    pub(crate) fn busy(turn: &Turn) -> PipelineError {
        PipelineError::TurnRunning {
            conversation_id: turn.conversation_id,
            turn_id: turn.id,
            owner: turn.lease.as_ref().map(|l| l.owner.to_string()),
        }
    }
}

/// Runs `start` (a store call that begins a running turn); when another turn of the
/// conversation runs, either refuses as busy (its owner is alive) or marks that turn
/// interrupted (its owner is gone) and tries once more.
pub(crate) async fn claim<T, F, Fut>(
    store: &dyn Store,
    lease: &LeaseSettings,
    mut start: F,
) -> Result<T, PipelineError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, RepositoryError>>,
{
    match start().await {
        Err(RepositoryError::TurnRunning(running)) if lease.abandoned(&running) => {
            store.interrupt_turn(running.id).await?;
            match start().await {
                Err(RepositoryError::TurnRunning(running)) => Err(LeaseSettings::busy(&running)),
                other => Ok(other?),
            }
        }
        Err(RepositoryError::TurnRunning(running)) => Err(LeaseSettings::busy(&running)),
        other => Ok(other?),
    }
}

/// Refuses while a live turn of the conversation runs anywhere (for work that is not a
/// turn: compaction, deletion); an abandoned one is marked interrupted first.
pub(crate) async fn ensure_idle(
    store: &dyn Store,
    lease: &LeaseSettings,
    conversation_id: ConversationId,
) -> Result<(), PipelineError> {
    if let Some(running) = store.running_turn(conversation_id).await? {
        if !lease.abandoned(&running) {
            return Err(LeaseSettings::busy(&running));
        }
        store.interrupt_turn(running.id).await?;
    }
    Ok(())
}

/// Renews `turn_id`'s lease every `every` until dropped (it never returns).
pub(crate) async fn keep_alive(
    store: &dyn Store,
    turn_id: TurnId,
    every: Duration,
) -> std::convert::Infallible {
    let mut ticks = tokio::time::interval(every);
    ticks.tick().await; // the first tick is immediate: the lease was just taken
    loop {
        ticks.tick().await;
        if let Err(error) = store.heartbeat(turn_id, chrono::Utc::now()).await {
            tracing::warn!(%turn_id, %error, "cannot renew the lease of a running turn");
        }
    }
}

/// Marks every abandoned running turn `interrupted`; returns how many.
pub(crate) async fn recover(
    store: &dyn Store,
    lease: &LeaseSettings,
) -> Result<u64, PipelineError> {
    let mut interrupted = 0;
    for turn in store.running_turns().await? {
        if lease.abandoned(&turn) && store.interrupt_turn(turn.id).await? {
            interrupted += 1;
        }
    }
    Ok(interrupted)
}
