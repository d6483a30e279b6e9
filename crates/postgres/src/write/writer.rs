//! The writer's handle: jobs queue here, and whoever finds the connection free drains
//! the queue on its own task — group commit without a hop to a task of the writer's
//! when nothing else is being written (a turn's writes on an idle store go out from the
//! turn's own task, as reads do), and one drain at a time for everyone.
//!
//! A caller that finds the connection taken leaves its job to the drain under way: it
//! takes what is queued before it lets the connection go, and looks again after. A
//! drain writes its caller's job in its first batch; what was queued meanwhile is left
//! to a task of its own, so no caller writes the others' jobs for long. A drain runs
//! to its end even when its caller stops waiting ([`RunToEnd`]): it holds the others'
//! jobs, and a statement is never left half sent.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use tracing::Instrument;

use smallebot_core::RepositoryError;
use smallebot_core::repository::RepoResult;
use sqlx::PgPool;
use tokio::sync::{OwnedMutexGuard, oneshot};

use super::link::{Link, Reply};
use super::{Job, MAX_DRAIN, write_all};
use crate::history::cache::RowsCache;

/// The jobs waiting for a drain.
#[derive(Debug, Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// Closed: jobs are refused.
    closed: bool,
}

/// What the handles share.
#[derive(Debug)]
struct Shared {
    queue: Mutex<Queue>,
    /// The connection; whoever holds it drains the queue.
    link: Arc<tokio::sync::Mutex<Link>>,
}

impl Shared {
    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        // A queue is consistent after every statement on it: a panic elsewhere never
        // leaves it half changed.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Up to [`MAX_DRAIN`] queued jobs, oldest first.
    fn take(&self) -> Vec<Job> {
        let mut queue = self.queue();
        let n = queue.jobs.len().min(MAX_DRAIN);
        queue.jobs.drain(..n).collect()
    }

    fn has_jobs(&self) -> bool {
        !self.queue().jobs.is_empty()
    }

    /// The connection, when nobody else holds it.
    fn try_link(&self) -> Option<OwnedMutexGuard<Link>> {
        Arc::clone(&self.link).try_lock_owned().ok()
    }
}

/// The handle of the writer; clones share it.
#[derive(Debug, Clone)]
pub(crate) struct Writer {
    shared: Arc<Shared>,
}

impl Writer {
    /// A writer writing through a connection of `pool` (taken when the first job comes).
    pub(crate) fn start(pool: PgPool, cache: RowsCache) -> Self {
        Self {
            shared: Arc::new(Shared {
                queue: Mutex::new(Queue::default()),
                link: Arc::new(tokio::sync::Mutex::new(Link::new(pool, cache))),
            }),
        }
    }

    /// Queues `job` (built around its reply sender), drains the queue when the
    /// connection is free, and waits for the job's answer; timed in a `store` span
    /// (its `operation` the write's name) for the metrics.
    pub(crate) async fn submit<T>(
        &self,
        action: &'static str,
        job: impl FnOnce(Reply<T>) -> Job,
    ) -> RepoResult<T> {
        self.submit_here(action, job)
            .instrument(tracing::debug_span!("store", operation = action))
            .await
    }

    async fn submit_here<T>(
        &self,
        action: &'static str,
        job: impl FnOnce(Reply<T>) -> Job,
    ) -> RepoResult<T> {
        let (reply, answer) = oneshot::channel();
        {
            let mut queue = self.shared.queue();
            if queue.closed {
                return Err(closed(action));
            }
            queue.jobs.push_back(job(reply));
        }
        if let Some(link) = self.shared.try_link() {
            RunToEnd::new(drain_once(Arc::clone(&self.shared), link)).await;
        }
        answer.await.unwrap_or_else(|_| Err(closed(action)))
    }

    /// Queues `job` without waiting for it or draining: it is written in the drain of
    /// the next job submitted, by [`Writer::flush`], or at [`Writer::close`]. For
    /// records nobody waits for (a model request's usage): no round trip of their own
    /// on the caller's path. Refused (and said) after the store was closed.
    pub(crate) fn enqueue(&self, action: &'static str, job: impl FnOnce(Reply<()>) -> Job) {
        let (reply, _unwatched) = oneshot::channel();
        let mut queue = self.shared.queue();
        if queue.closed {
            tracing::warn!(action, "the store was closed; this record was not stored");
            return;
        }
        queue.jobs.push_back(job(reply));
    }

    /// Writes whatever is queued (returns at once when nothing is), so that a read
    /// sees what [`Writer::enqueue`] queued.
    pub(crate) async fn flush(&self) -> RepoResult<()> {
        if !self.shared.has_jobs() {
            return Ok(());
        }
        self.submit("writing queued records", Job::Flush).await
    }

    /// Refuses new jobs, writes what is queued and closes the connection; returns once
    /// it is closed.
    pub(crate) async fn close(&self) {
        self.shared.queue().closed = true;
        let mut link = Arc::clone(&self.shared.link).lock_owned().await;
        loop {
            let jobs = self.shared.take();
            if jobs.is_empty() {
                break;
            }
            write_all(&mut link, jobs).await;
        }
        link.disconnect().await;
    }
}

/// The error of a job sent after the store was closed.
fn closed(action: &'static str) -> RepositoryError {
    RepositoryError::Unavailable {
        action,
        message: "the store was closed".into(),
    }
}

/// Writes one batch of what is queued (the caller's job among it), then hands on.
async fn drain_once(shared: Arc<Shared>, mut link: OwnedMutexGuard<Link>) {
    let jobs = shared.take();
    write_all(&mut link, jobs).await;
    hand_on(shared, link);
}

/// Writes what is queued until nothing is, then hands on.
async fn drain_all(shared: Arc<Shared>, mut link: OwnedMutexGuard<Link>) {
    loop {
        let jobs = shared.take();
        if jobs.is_empty() {
            break;
        }
        write_all(&mut link, jobs).await;
    }
    hand_on(shared, link);
}

/// After a drain: jobs queued meanwhile go to a task of their own with the connection;
/// else the connection is let go — and a job queued just before that, whose caller
/// found the connection taken, is drained by such a task too.
fn hand_on(shared: Arc<Shared>, link: OwnedMutexGuard<Link>) {
    let link = if shared.has_jobs() {
        link
    } else {
        drop(link);
        match shared.has_jobs().then(|| shared.try_link()).flatten() {
            Some(link) => link,
            // Nothing queued, or whoever holds the connection now drains it.
            None => return,
        }
    };
    tokio::spawn(drain_all(shared, link));
}

/// A future that runs to its end: dropped before, it goes on in a task of its own.
struct RunToEnd(Option<Pin<Box<dyn Future<Output = ()> + Send>>>);

impl RunToEnd {
    fn new(future: impl Future<Output = ()> + Send + 'static) -> Self {
        Self(Some(Box::pin(future)))
    }
}

impl Future for RunToEnd {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let Some(future) = this.0.as_mut() else {
            return Poll::Ready(());
        };
        if future.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        this.0 = None;
        Poll::Ready(())
    }
}

impl Drop for RunToEnd {
    fn drop(&mut self) {
        if let Some(future) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(future);
        }
    }
}
