//! What tests of the writer look at and hold: its counters, its queue, its settings.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{Inner, Writer, lock};

impl Writer {
    /// The write connection's value of `PRAGMA name` (a test's look at its settings).
    pub(crate) fn pragma(&self, name: &str) -> i64 {
        let conn = lock(&self.inner.conn);
        let conn = conn.as_ref().expect("the writer is open");
        conn.pragma_query_value(None, name, |row| row.get(0))
            .expect("the pragma answers")
    }

    /// How many jobs committed in a transaction shared with others so far.
    pub(crate) fn jobs_run_together(&self) -> usize {
        self.inner.together.load(Ordering::Relaxed)
    }

    /// How many jobs wait in the queue.
    pub(crate) fn queued(&self) -> usize {
        lock(&self.inner.queue).len()
    }

    /// Keeps records nobody waits for back this long from now on.
    pub(crate) fn defer_for(&self, wait: Duration) {
        *lock(&self.inner.deferred_for) = wait;
    }

    /// How many records nobody waits for are kept back.
    pub(crate) fn deferred(&self) -> usize {
        lock(&self.inner.queue).deferred()
    }

    /// Keeps every write queued until the returned guard is dropped (tests: to make
    /// jobs meet in one batch).
    pub(crate) fn hold(&self) -> Held {
        loop {
            if lock(&self.inner.queue).start_draining() {
                return Held {
                    inner: Arc::clone(&self.inner),
                };
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// See [`Writer::hold`]: dropped, it drains what queued meanwhile.
pub(crate) struct Held {
    inner: Arc<Inner>,
}

impl Drop for Held {
    fn drop(&mut self) {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || inner.drain());
    }
}
