//! The limit on failed sign-ins: after [`MAX_FAILURES`] failed tries from one client
//! address within [`WINDOW`], further tries from it are refused (`429`) until the
//! oldest failure leaves the window. Kept in the router's state, per
//! [`WebState`](crate::WebState).

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failed tries allowed from one address within [`WINDOW`].
pub const MAX_FAILURES: usize = 5;

/// How long a failed try counts.
pub const WINDOW: Duration = Duration::from_secs(600);

/// Most addresses remembered at once; past that the ones whose failures are all old
/// are forgotten first, then the rest (a flood of addresses cannot grow memory).
const MAX_ADDRESSES: usize = 10_000;

/// Failed sign-in tries by client address (`None`: the address is unknown).
#[derive(Debug, Default)]
pub(crate) struct LoginLimiter {
    failures: Mutex<HashMap<Option<IpAddr>, VecDeque<Instant>>>,
}

impl LoginLimiter {
    /// How long `client` must wait before trying again at `now`; `None` when it may
    /// try now.
    pub(crate) fn wait(&self, client: Option<IpAddr>, now: Instant) -> Option<Duration> {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let tries = failures.get_mut(&client)?;
        forget_old(tries, now);
        retry_after(tries, now)
    }

    /// Counts a failed try of `client` at `now`.
    pub(crate) fn failed(&self, client: Option<IpAddr>, now: Instant) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        if failures.len() >= MAX_ADDRESSES && !failures.contains_key(&client) {
            failures.retain(|_, tries| {
                forget_old(tries, now);
                !tries.is_empty()
            });
            if failures.len() >= MAX_ADDRESSES {
                failures.clear();
            }
        }
        let tries = failures.entry(client).or_default();
        forget_old(tries, now);
        tries.push_back(now);
        while tries.len() > MAX_FAILURES {
            tries.pop_front();
        }
    }
}

/// Drops the failures that left the window.
fn forget_old(tries: &mut VecDeque<Instant>, now: Instant) {
    while tries
        .front()
        .is_some_and(|t| now.saturating_duration_since(*t) >= WINDOW)
    {
        tries.pop_front();
    }
}

/// The wait before the next try, given the failures within the window (oldest first).
fn retry_after(tries: &VecDeque<Instant>, now: Instant) -> Option<Duration> {
    if tries.len() < MAX_FAILURES {
        return None;
    }
    let oldest = *tries.front()?;
    Some(WINDOW.saturating_sub(now.saturating_duration_since(oldest)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sixth_try_within_the_window_waits_for_the_oldest_failure() {
        let start = Instant::now();
        let at = |secs| start + Duration::from_secs(secs);
        let a = Some(IpAddr::from([10, 0, 0, 1]));
        let b = Some(IpAddr::from([10, 0, 0, 2]));
        let limiter = LoginLimiter::default();
        // (failures so far at these seconds, asked at, expected wait in seconds)
        let cases: [(&[u64], u64, Option<u64>); 5] = [
            (&[0, 1, 2, 3], 4, None),
            (&[4], 5, Some(595)),
            (&[], 300, Some(300)),
            (&[], 600, None),
            (&[601, 602, 603, 604, 605], 606, Some(595)),
        ];
        for (failures, asked, expected) in cases {
            for t in failures {
                limiter.failed(a, at(*t));
            }
            assert_eq!(
                limiter.wait(a, at(asked)).map(|d| d.as_secs()),
                expected,
                "{failures:?} at {asked}"
            );
        }
        assert_eq!(limiter.wait(b, at(606)), None, "another address");
        assert_eq!(limiter.wait(None, at(606)), None, "an unknown address");
    }
}
