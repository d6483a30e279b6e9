//! The store's one write path: every write is a typed [`Write`] job, queued for the
//! one write connection and run by its writer.
//!
//! The writer is whoever finds the queue idle: it takes everything queued (its own
//! job and what other callers queued meanwhile, up to [`MAX_BATCH`]) and runs it as
//! one transaction (`BEGIN IMMEDIATE` … `COMMIT`), each job inside a `SAVEPOINT` of its
//! own: a failing job is rolled back to its savepoint — nothing of it stays — and the
//! others commit. Every job's answer is handed over only after `COMMIT` returned, so an
//! acknowledged write is committed; should `COMMIT` fail, every job of the batch gets
//! that error and nothing of the batch is stored.
//!
//! The statements are typed and prepared once per connection (rusqlite's statement
//! cache). They run on the calling thread when the connection is free: sqlx runs
//! each SQLite connection on a thread of its own, and a trip there and back per
//! statement cost more than the statements themselves. With nothing else writing, a
//! write therefore costs no thread hop at all. The busy timeout there is zero: should
//! another *process* hold SQLite's write lock, `BEGIN IMMEDIATE` fails at once (before
//! any job ran) and the batch moves to tokio's blocking pool, where it waits up to the
//! store's busy timeout; jobs queued meanwhile are drained there too.

mod append;
mod attachments;
mod conversations;
mod discard;
mod file_changes;
mod grants;
mod history;
mod hook_runs;
mod job;
mod mcp_credentials;
mod queue;
mod settle;
#[cfg(test)]
mod test_hooks;
mod turns;
mod usage;
mod users;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tracing::Instrument;

use smallebot_core::RepositoryError;
use smallebot_core::repository::RepoResult;
use tokio::sync::oneshot;

pub(crate) use attachments::{AttachmentPut, AttachmentsPut};
pub(crate) use grants::GrantWrite;
pub(crate) use job::{CheckpointWrite, ConversationWrite, Write};
pub(crate) use mcp_credentials::McpCredentialWrite;
pub(crate) use settle::Reply;
pub(crate) use turns::TurnStart;
pub(crate) use users::UserWrite;

use queue::{DEFERRED_FOR, Queue};
use settle::{Refusal, Settled, exec};

use crate::error::is_busy;
use crate::open::{self, OpenMode};
use crate::wal_checkpoints::{WalCheckpoints, WriteConnection};

/// The most jobs in one transaction.
pub(crate) const MAX_BATCH: usize = 64;

/// The log's length in pages at which a commit checkpoints it (SQLite's automatic
/// checkpoint; 1 000 by default). Under a steady stream of writes the log grows by every
/// commit's pages — the same few hot pages again and again — and the commit that passes
/// this length copies them into the database file and syncs both files while every
/// queued write waits. The syncs cost the same whatever the length and the copying
/// grows with it, so shorter logs make shorter, more frequent stalls: measured with
/// 2 000 turns at once (the serve benchmark, interleaved runs), p99 from the model's
/// last byte to the client's `TurnCompleted` was 30–42 ms at 1 000 pages, 25–31 ms at
/// 300, 52–76 ms at 10 000, with the same CPU at 300 and 1 000 (100 cost more CPU for
/// little). In the writer's pauses the checkpoint thread does it instead
/// (`wal_checkpoints.rs`).
const AUTOCHECKPOINT_PAGES: i64 = 300;

/// Connection-local triggers of the write connection: a row (or turn) inserted with a
/// `seq` advances its conversation's `last_seq` (never backwards) and `updated_at`, so
/// an append is one `INSERT … SELECT last_seq + 1 …`. `TEMP`: they are not part of the
/// database file, so other connections, processes and builds are unaffected. Should
/// an append ever run without them, `last_seq` would not move and the next append
/// would fail on `UNIQUE (conversation_id, seq)` — loudly, never silently.
const SEQ_TRIGGERS: &str = "\
    CREATE TEMP TRIGGER IF NOT EXISTS seq_of_message AFTER INSERT ON main.messages BEGIN \
      UPDATE conversations SET last_seq = max(last_seq, new.seq), \
        updated_at = new.created_at WHERE id = new.conversation_id; \
    END; \
    CREATE TEMP TRIGGER IF NOT EXISTS seq_of_tool_call AFTER INSERT ON main.tool_calls BEGIN \
      UPDATE conversations SET last_seq = max(last_seq, new.seq), \
        updated_at = new.started_at WHERE id = new.conversation_id; \
    END; \
    CREATE TEMP TRIGGER IF NOT EXISTS seq_of_think_block AFTER INSERT ON main.think_blocks BEGIN \
      UPDATE conversations SET last_seq = max(last_seq, new.seq), \
        updated_at = new.created_at WHERE id = new.conversation_id; \
    END; \
    CREATE TEMP TRIGGER IF NOT EXISTS seq_of_turn AFTER INSERT ON main.turns BEGIN \
      UPDATE conversations SET last_seq = max(last_seq, new.seq), \
        updated_at = new.created_at WHERE id = new.conversation_id; \
    END;";

struct Inner {
    /// `None` once closed. Only the draining writer uses it — and, between batches, the
    /// checkpoint thread (to start the log again).
    conn: WriteConnection,
    queue: Mutex<Queue>,
    busy_timeout: Duration,
    /// How long records nobody waits for are kept back ([`DEFERRED_FOR`]).
    deferred_for: Mutex<Duration>,
    /// How many jobs committed in a transaction shared with others.
    together: AtomicUsize,
    /// The thread that checkpoints the log in the writer's pauses (`None`: read-only,
    /// or it could not start; SQLite's automatic checkpoint in the commit remains).
    checkpoints: Mutex<Option<WalCheckpoints>>,
}

/// The write connection and its queue, shared by every clone of the store.
#[derive(Clone)]
pub(crate) struct Writer {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

/// Whether a batch may wait for another process's lock (on the blocking pool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    No,
    Yes,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Writer {
    /// Opens the write connection to `path` in `mode` (a read-only store's writes
    /// fail with SQLite's read-only error).
    pub(crate) fn open(
        path: &Path,
        mode: OpenMode,
        busy_timeout: Duration,
    ) -> Result<Self, rusqlite::Error> {
        let conn = open::connection(path, mode, busy_timeout)?;
        // A batch's jobs each run in a savepoint, so a statement that changes pages an
        // earlier job of the batch changed keeps their old contents in a statement
        // journal; past 64 KiB SQLite spills it to a temporary file (created, written
        // and deleted per batch: about ten files per delegating turn measured). In
        // memory it costs only the copy.
        conn.pragma_update(None, "temp_store", "MEMORY")?;
        conn.pragma_update(None, "wal_autocheckpoint", AUTOCHECKPOINT_PAGES)?;
        conn.execute_batch(SEQ_TRIGGERS)?;
        let conn: WriteConnection = Arc::new(Mutex::new(Some(conn)));
        let checkpoints = match mode {
            OpenMode::ReadWrite => WalCheckpoints::start(path, Arc::clone(&conn)),
            OpenMode::ReadOnly | OpenMode::Immutable => None,
        };
        Ok(Self {
            inner: Arc::new(Inner {
                conn,
                queue: Mutex::default(),
                busy_timeout,
                deferred_for: Mutex::new(DEFERRED_FOR),
                together: AtomicUsize::new(0),
                checkpoints: Mutex::new(checkpoints),
            }),
        })
    }

    /// Queues the job `make` builds around its reply and returns its answer once its
    /// transaction committed (or its error, with nothing of it stored); timed in a
    /// `store` span (operation `write`) for the metrics.
    pub(crate) async fn run<T>(&self, make: impl FnOnce(Reply<T>) -> Write) -> RepoResult<T> {
        self.run_here(make)
            .instrument(tracing::debug_span!("store", operation = "write"))
            .await
    }

    async fn run_here<T>(&self, make: impl FnOnce(Reply<T>) -> Write) -> RepoResult<T> {
        let (reply, answer) = oneshot::channel();
        let job = make(reply);
        let drain_here = lock(&self.inner.queue).push(job);
        if drain_here {
            Inner::drain_here(&self.inner);
        }
        answer.await.unwrap_or_else(|_| {
            Err(RepositoryError::Unavailable {
                action: "writing to the database",
                message: "the writer stopped before running this write".into(),
            })
        })
    }

    /// Queues `make`'s job without waiting for it, for records nobody waits for (a
    /// model request's usage): written about [`DEFERRED_FOR`] later by a task of its own, or
    /// earlier by [`Writer::flush`], or at [`Writer::close`] — never lost while the
    /// store is closed properly. Such a record arrives when a model answered, just
    /// before the write the turn waits for (its step): kept out of that write's batch,
    /// it costs the turn nothing and is written while the turn waits for the model
    /// again. Outside a runtime it goes with the next write.
    pub(crate) fn enqueue(&self, make: impl FnOnce(Reply<()>) -> Write) {
        let (reply, _unwatched) = oneshot::channel();
        let job = make(reply);
        let runtime = tokio::runtime::Handle::try_current();
        let mut queue = lock(&self.inner.queue);
        let Ok(runtime) = runtime else {
            queue.ride_along(job);
            return;
        };
        if queue.defer(job) {
            let writer = self.clone();
            let wait = *lock(&self.inner.deferred_for);
            runtime.spawn(async move {
                tokio::time::sleep(wait).await;
                lock(&writer.inner.queue).deferred_flush_started();
                // A failure was said where the record was written (`insert_queued`).
                let _ = writer.flush().await;
            });
        }
    }

    /// Writes whatever is queued or deferred (nothing to do, no transaction, when
    /// nothing is), so that a read sees what [`Writer::enqueue`] queued.
    pub(crate) async fn flush(&self) -> RepoResult<()> {
        if !lock(&self.inner.queue).undefer() {
            return Ok(());
        }
        self.run(|reply| Write::Flush { reply }).await
    }

    /// Writes what is still queued, then closes the connection once the current batch
    /// is done; later writes fail as unavailable.
    pub(crate) async fn close(&self) {
        let inner = Arc::clone(&self.inner);
        let closed = tokio::task::spawn_blocking(move || {
            let mine = {
                let mut queue = lock(&inner.queue);
                queue.undefer();
                queue.start_draining()
            };
            if mine {
                inner.drain();
            }
            let conn = lock(&inner.conn).take();
            if let Some(mut checkpoints) = lock(&inner.checkpoints).take() {
                checkpoints.stop();
            }
            conn
        })
        .await;
        if let Ok(Some(conn)) = closed
            && let Err((_, err)) = conn.close()
        {
            tracing::warn!(%err, "closing the write connection failed");
        }
    }
}

impl Inner {
    /// Up to [`MAX_BATCH`] queued jobs; none (and draining ends) when the queue is
    /// empty.
    fn take_batch(&self) -> Option<Vec<Write>> {
        lock(&self.queue).take_batch()
    }

    /// One batch on the calling thread, without waiting for another process's lock;
    /// whatever is left (or must wait) goes on on the blocking pool.
    fn drain_here(this: &Arc<Self>) {
        let Some(batch) = this.take_batch() else {
            return;
        };
        let left = match this.run_batch(batch, Wait::No) {
            Ok(()) => match this.take_batch() {
                Some(more) => more,
                None => return,
            },
            Err(busy) => busy,
        };
        let inner = Arc::clone(this);
        tokio::task::spawn_blocking(move || {
            inner.finish(left);
            inner.drain();
        });
    }

    /// Runs batches, waiting for locks, until the queue is empty.
    fn drain(&self) {
        while let Some(batch) = self.take_batch() {
            self.finish(batch);
        }
    }

    /// Runs `batch`, waiting for another process's lock up to the busy timeout.
    fn finish(&self, batch: Vec<Write>) {
        if let Err(left) = self.run_batch(batch, Wait::Yes) {
            // Only a batch that may not wait comes back; answer it all the same.
            refuse(
                left,
                &Refusal {
                    action: "writing to the database",
                    message: "another process holds the write lock".into(),
                    unavailable: true,
                },
            );
        }
    }

    /// Runs `batch` as one transaction and answers every job. Gives the batch back,
    /// untouched, when another process holds the write lock and `wait` is no.
    fn run_batch(&self, batch: Vec<Write>, wait: Wait) -> Result<(), Vec<Write>> {
        let mut slot = lock(&self.conn);
        let Some(conn) = slot.as_mut() else {
            refuse(batch, &Refusal::closed());
            return Ok(());
        };
        let timeout = match wait {
            Wait::No => Duration::ZERO,
            Wait::Yes => self.busy_timeout,
        };
        if let Err(err) = conn.busy_timeout(timeout) {
            refuse(batch, &Refusal::storage("setting the busy timeout", &err));
            return Ok(());
        }
        if !conn.is_autocommit() {
            // A transaction left open by a failed ROLLBACK: end it first.
            let _ = exec(conn, "ROLLBACK");
        }
        match exec(conn, "BEGIN IMMEDIATE") {
            Ok(()) => {}
            Err(err) if wait == Wait::No && is_busy(&err) => return Err(batch),
            Err(err) => {
                refuse(
                    batch,
                    &Refusal::storage("starting a write transaction", &err),
                );
                return Ok(());
            }
        }
        let size = batch.len();
        let settled: Vec<Settled> = batch.into_iter().map(|job| job.apply(Ok(conn))).collect();
        let broken = settled.iter().any(Settled::broken);
        let committed = if broken {
            Err(Refusal {
                action: "writing to the database",
                message: "a failed write could not be rolled back; nothing of this batch was \
                          stored, try again"
                    .into(),
                unavailable: false,
            })
        } else {
            exec(conn, "COMMIT").map_err(|err| Refusal::storage("committing writes", &err))
        };
        match committed {
            Ok(()) => {
                if let Some(checkpoints) = lock(&self.checkpoints).as_ref() {
                    checkpoints.committed();
                }
                if size > 1 {
                    self.together.fetch_add(size, Ordering::Relaxed);
                }
                for done in settled {
                    done.send(None);
                }
            }
            Err(refusal) => {
                if let Err(err) = exec(conn, "ROLLBACK") {
                    tracing::warn!(%err, "ROLLBACK after a failed batch failed");
                }
                for done in settled {
                    done.send(Some(&refusal));
                }
            }
        }
        Ok(())
    }
}

/// Answers every job of `batch` with `refusal`'s error; nothing ran.
fn refuse(batch: Vec<Write>, refusal: &Refusal) {
    for job in batch {
        job.apply(Err(refusal)).send(None);
    }
}

#[cfg(test)]
#[path = "write_tests.rs"]
mod tests;
