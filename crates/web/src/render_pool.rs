//! Rendering Markdown off the async threads: a job runs on tokio's blocking pool once
//! one of a few places is free ([`RenderPool::run`]), so a long render never holds a
//! thread that answers requests (`/healthz` stays quick), renders queue when they come
//! faster than the CPUs can do them, and a render whose request went away (the client
//! left) is told to stop and gives its place back.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Semaphore;

use crate::error::ApiError;
use crate::markdown::Cancelled;

/// The places for renders, shared by every route that renders.
#[derive(Clone)]
pub(crate) struct RenderPool {
    places: Arc<Semaphore>,
}

/// Sets its flag when dropped: the future awaiting a render went away.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl RenderPool {
    /// At most `places` renders at once (at least 1).
    pub(crate) fn new(places: usize) -> Self {
        Self {
            places: Arc::new(Semaphore::new(places.max(1))),
        }
    }

    /// Runs `job` on the blocking pool once a place is free and answers what it
    /// returns. `job` is given a check that turns true as soon as the future this
    /// returns is dropped (it should then return [`Cancelled`]); a job not started yet
    /// when that happens never starts.
    ///
    /// # Errors
    /// `500` when the job panicked; `503` when it stopped although its request is
    /// still waiting (it should not).
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&dyn Fn() -> bool) -> Result<T, Cancelled> + Send + 'static,
    ) -> Result<T, ApiError> {
        let stop = Arc::new(AtomicBool::new(false));
        let _stop_on_drop = StopOnDrop(Arc::clone(&stop));
        let place = Arc::clone(&self.places)
            .acquire_owned()
            .await
            .map_err(|_| ApiError::unavailable("the server is shutting down"))?;
        let done = tokio::task::spawn_blocking(move || {
            let _place = place;
            job(&|| stop.load(Ordering::Relaxed))
        })
        .await
        .map_err(|e| ApiError::internal(format!("rendering failed: {e}")))?;
        done.map_err(|Cancelled| ApiError::unavailable("rendering stopped; ask again"))
    }
}

/// The default number of places: half the CPUs this process may use (at least one),
/// so that renders never take every CPU from the requests.
pub(crate) fn default_places() -> usize {
    (std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get) / 2).max(1)
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use super::RenderPool;
    use crate::markdown::Cancelled;

    /// How long a gate waits before the test gives up (only against a hang: the
    /// assertions do not depend on it).
    const GIVE_UP: Duration = Duration::from_secs(30);

    #[tokio::test(flavor = "current_thread")]
    async fn a_render_runs_off_the_async_thread_and_stops_when_its_request_goes() {
        let pool = RenderPool::new(1);
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (stopped_tx, stopped_rx) = tokio::sync::oneshot::channel();
        let running = pool.clone();
        let request = tokio::spawn(async move {
            running
                .run(move |cancelled| {
                    let _ = started_tx.send(());
                    // Held until the test says so: on the async thread this would stop
                    // the test's own task (the runtime has one thread).
                    release_rx.recv_timeout(GIVE_UP).expect("released");
                    while !cancelled() {
                        std::thread::yield_now();
                    }
                    let _ = stopped_tx.send(());
                    Err::<(), _>(Cancelled)
                })
                .await
        });
        started_rx.await.expect("the job started");
        // The async thread is free while the job runs: this task goes on.
        tokio::task::yield_now().await;
        // A second render waits for the one place; dropping its request starts nothing.
        let waiting = pool.run(|_| -> Result<(), Cancelled> { panic!("never started") });
        let waited = tokio::time::timeout(Duration::from_millis(10), waiting).await;
        assert!(waited.is_err(), "the second render waits for the place");
        // The client of the first goes away: its job is told to stop, and gives the
        // place back.
        request.abort();
        release_tx.send(()).expect("the job waits");
        tokio::time::timeout(GIVE_UP, stopped_rx)
            .await
            .expect("the job saw it should stop")
            .expect("sent");
        let next = tokio::time::timeout(GIVE_UP, pool.run(|_| Ok(7)))
            .await
            .expect("the place was given back");
        assert_eq!(next.ok(), Some(7));
    }
}
