//! One keep-alive tick for all event streams: a stream waiting for events leaves its
//! waker here once per tick instead of holding a timer of its own, and one task wakes
//! them all every [`KEEP_ALIVE_EVERY`] (while any waits).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// How often an idle event stream sends a keep-alive comment (as axum's default).
pub(crate) const KEEP_ALIVE_EVERY: Duration = Duration::from_secs(15);

/// The shared tick (one per web state).
#[derive(Debug)]
pub(crate) struct Ticks {
    every: Duration,
    /// `State::epoch`, read without the lock by a stream that already waits.
    epoch: AtomicU64,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// How many ticks passed.
    epoch: u64,
    /// The streams waiting for the next tick.
    waiting: Vec<Waker>,
    /// Whether the ticking task runs.
    ticking: bool,
}

/// Where one stream is: the tick it saw, and whether it waits for the next.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seen {
    epoch: u64,
    waiting: bool,
}

impl Ticks {
    /// A tick every `every`.
    pub(crate) fn new(every: Duration) -> Arc<Self> {
        Arc::new(Self {
            every,
            epoch: AtomicU64::new(0),
            state: Mutex::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A stream starting now: its first keep-alive comes at the next tick.
    pub(crate) fn seen(&self) -> Seen {
        Seen {
            epoch: self.lock().epoch,
            waiting: false,
        }
    }

    /// Ready once a tick passed since `seen` (which then moves to it); pending
    /// otherwise, `cx` woken at the next tick. Each stream's task leaves one waker per
    /// tick (a task's wakers all wake it).
    pub(crate) fn poll_tick(self: &Arc<Self>, seen: &mut Seen, cx: &mut Context<'_>) -> Poll<()> {
        // A stream polled for its events between ticks takes no lock.
        if seen.waiting && self.epoch.load(Ordering::Acquire) == seen.epoch {
            return Poll::Pending;
        }
        let mut state = self.lock();
        if state.epoch != seen.epoch {
            *seen = Seen {
                epoch: state.epoch,
                waiting: false,
            };
            return Poll::Ready(());
        }
        if !seen.waiting {
            state.waiting.push(cx.waker().clone());
            seen.waiting = true;
            if !state.ticking {
                state.ticking = true;
                tokio::spawn(tick(Arc::downgrade(self), self.every));
            }
        }
        Poll::Pending
    }
}

/// Ticks every `every` while `ticks` lives and a stream waits.
async fn tick(ticks: Weak<Ticks>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        let Some(ticks) = ticks.upgrade() else {
            return;
        };
        let waiting = {
            let mut state = ticks.lock();
            state.epoch += 1;
            ticks.epoch.store(state.epoch, Ordering::Release);
            if state.waiting.is_empty() {
                // Started again by the next stream that waits.
                state.ticking = false;
                return;
            }
            std::mem::take(&mut state.waiting)
        };
        drop(ticks);
        for waker in waiting {
            waker.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_waiting_stream_is_woken_by_the_next_tick_and_sees_it_once() {
        let ticks = Ticks::new(Duration::from_millis(20));
        let mut seen = ticks.seen();
        let started = std::time::Instant::now();
        std::future::poll_fn(|cx| ticks.poll_tick(&mut seen, cx)).await;
        assert!(started.elapsed() >= Duration::from_millis(20));
        // The tick was seen: the next poll waits for the one after.
        let again = std::future::poll_fn(|cx| Poll::Ready(ticks.poll_tick(&mut seen, cx))).await;
        assert!(again.is_pending());
        std::future::poll_fn(|cx| ticks.poll_tick(&mut seen, cx)).await;
        assert!(started.elapsed() >= Duration::from_millis(40));
    }

    #[tokio::test]
    async fn a_stream_leaves_one_waker_per_tick() {
        let ticks = Ticks::new(Duration::from_secs(3600));
        let mut seen = ticks.seen();
        for _ in 0..3 {
            let polled =
                std::future::poll_fn(|cx| Poll::Ready(ticks.poll_tick(&mut seen, cx))).await;
            assert!(polled.is_pending());
        }
        assert_eq!(ticks.lock().waiting.len(), 1);
    }
}
