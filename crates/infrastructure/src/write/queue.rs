//! The writer's queue: the jobs waiting for the write connection, whether a writer is
//! draining them, and the records nobody waits for, kept back for a moment.

use std::collections::VecDeque;
use std::time::Duration;

use super::{MAX_BATCH, Write};

/// How long a record nobody waits for may be kept back (see `Writer::enqueue`).
pub(super) const DEFERRED_FOR: Duration = Duration::from_millis(10);

/// The queued jobs, and whether a writer is draining them.
#[derive(Default)]
pub(super) struct Queue {
    jobs: VecDeque<Write>,
    draining: bool,
    /// Records nobody waits for, kept out of the batches until written on their own.
    deferred: Vec<Write>,
    /// Whether a task will write `deferred` soon.
    deferred_flush: bool,
}

impl Queue {
    /// Queues `job`; whether the caller is to drain the queue (no writer was).
    pub(super) fn push(&mut self, job: Write) -> bool {
        self.jobs.push_back(job);
        self.start_draining()
    }

    /// Queues `job` for the next batch without draining: it goes with the next write.
    pub(super) fn ride_along(&mut self, job: Write) {
        self.jobs.push_back(job);
    }

    /// Marks the queue as being drained; whether it was not before.
    pub(super) fn start_draining(&mut self) -> bool {
        !std::mem::replace(&mut self.draining, true)
    }

    /// Up to [`MAX_BATCH`] queued jobs; none (and draining ends) when the queue is
    /// empty.
    pub(super) fn take_batch(&mut self) -> Option<Vec<Write>> {
        if self.jobs.is_empty() {
            self.draining = false;
            return None;
        }
        let n = self.jobs.len().min(MAX_BATCH);
        Some(self.jobs.drain(..n).collect())
    }

    /// Keeps `job` back; whether a write of the kept records is to be scheduled (none
    /// is yet).
    pub(super) fn defer(&mut self, job: Write) -> bool {
        self.deferred.push(job);
        !std::mem::replace(&mut self.deferred_flush, true)
    }

    /// The scheduled write of the kept records is under way: the next record kept back
    /// schedules another.
    pub(super) fn deferred_flush_started(&mut self) {
        self.deferred_flush = false;
    }

    /// Makes the records kept back part of the next batch; whether any job is queued.
    pub(super) fn undefer(&mut self) -> bool {
        self.jobs.extend(self.deferred.drain(..));
        !self.jobs.is_empty()
    }

    /// How many jobs are queued (the kept-back records not counted).
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.jobs.len()
    }

    /// How many records are kept back.
    #[cfg(test)]
    pub(super) fn deferred(&self) -> usize {
        self.deferred.len()
    }
}

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
