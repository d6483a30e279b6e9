//! Whether a running turn's lease still holds: the rule recovery and the busy check
//! share.
//!
//! A turn is *live* while its owner is this very agent, or while its heartbeat is fresh
//! and (on this host) its owner's process still exists. Otherwise it is abandoned:
//! recovery marks it `interrupted`, and a new turn may start.

use std::time::Duration;

use crate::entities::{LeaseOwner, TurnLease};
use crate::time::Timestamp;

/// What a running turn's lease says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LeaseState {
    /// Its owner is (or may be) still running it.
    Live,
    /// Its owner's process is gone (same host, no such process).
    OwnerGone,
    /// No heartbeat for longer than the stale limit (or no lease at all: a turn
    /// started before leases existed).
    Stale,
}

impl LeaseState {
    /// Whether the turn is abandoned (not [`LeaseState::Live`]).
    #[must_use]
    pub fn is_abandoned(self) -> bool {
        self != Self::Live
    }
}

/// The state of `lease` as seen by process `here` at `now`: `process_exists` tells
/// whether a process id exists on this host; a heartbeat older than `stale_after`
/// is stale.
#[must_use]
pub fn lease_state(
    lease: Option<&TurnLease>,
    here: &LeaseOwner,
    now: Timestamp,
    stale_after: Duration,
    process_exists: impl Fn(u32) -> bool,
) -> LeaseState {
    let Some(lease) = lease else {
        return LeaseState::Stale;
    };
    if lease.owner == *here {
        return LeaseState::Live;
    }
    // Another process on this host that no longer exists. (Our own pid with another
    // start time is another agent in this process, or an earlier process whose pid we
    // got: only its heartbeat can tell.)
    if lease.owner.host == here.host
        && lease.owner.pid != here.pid
        && !process_exists(lease.owner.pid)
    {
        return LeaseState::OwnerGone;
    }
    let limit = chrono::Duration::from_std(stale_after).unwrap_or(chrono::Duration::MAX);
    if now.signed_duration_since(lease.heartbeat_at) > limit {
        LeaseState::Stale
    } else {
        LeaseState::Live
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn at(second: u32) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, second).unwrap()
    }

    fn owner(pid: u32, host: &str, started: u32) -> LeaseOwner {
        LeaseOwner {
            pid,
            host: host.into(),
            started_at: at(started),
        }
    }

    #[test]
    fn live_only_while_the_owner_can_still_be_running_it() {
        let here = owner(100, "a", 0);
        let alive = |pid: u32| pid == 100 || pid == 200;
        let lease = |o: LeaseOwner, beat: u32| TurnLease {
            owner: o,
            heartbeat_at: at(beat),
        };
        let stale_after = Duration::from_secs(30);
        let now = at(59);
        let cases = [
            ("no lease", None, LeaseState::Stale),
            (
                "this process",
                Some(lease(here.clone(), 0)),
                LeaseState::Live,
            ),
            (
                "live neighbour",
                Some(lease(owner(200, "a", 1), 50)),
                LeaseState::Live,
            ),
            (
                "dead neighbour",
                Some(lease(owner(300, "a", 1), 58)),
                LeaseState::OwnerGone,
            ),
            (
                "another agent of this process",
                Some(lease(owner(100, "a", 5), 58)),
                LeaseState::Live,
            ),
            (
                "our pid, silent",
                Some(lease(owner(100, "a", 5), 10)),
                LeaseState::Stale,
            ),
            (
                "neighbour, silent",
                Some(lease(owner(200, "a", 1), 20)),
                LeaseState::Stale,
            ),
            (
                "other host, fresh",
                Some(lease(owner(300, "b", 1), 40)),
                LeaseState::Live,
            ),
            (
                "other host, exactly at the limit",
                Some(lease(owner(300, "b", 1), 29)),
                LeaseState::Live,
            ),
            (
                "other host, silent",
                Some(lease(owner(300, "b", 1), 28)),
                LeaseState::Stale,
            ),
        ];
        for (name, lease, expected) in cases {
            let state = lease_state(lease.as_ref(), &here, now, stale_after, alive);
            assert_eq!(state, expected, "{name}");
            assert_eq!(state.is_abandoned(), expected != LeaseState::Live, "{name}");
        }
    }
}
