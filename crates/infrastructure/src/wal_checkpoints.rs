//! Checkpoints of the write-ahead log in the writer's pauses, off its path.
//!
//! SQLite's own (automatic) checkpoint runs inside the `COMMIT` that pushes the log past
//! its length (300 pages on the write connection, `write.rs`): that commit copies the log's pages into the database file and syncs both
//! files before it returns, and every write queued behind it waits (10–25 ms measured on
//! a small virtual machine, most of it the two syncs). Here a thread of the store's own,
//! on a connection of its own, checkpoints whenever the writer has paused for [`QUIET`]
//! after a commit (a turn waiting for its model): a `PASSIVE` checkpoint, which blocks
//! no writer or reader, and with nothing written meanwhile it catches up with the log,
//! so the next write starts the log from its beginning again and the automatic
//! checkpoint is rarely reached. Under a steady stream of writes there is no pause: the
//! automatic checkpoint does the work as before (a checkpoint beside steady writes never
//! catches up, the log would only grow, and the syncs beside the writes measured worse
//! than the writer's own).

use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use crate::open::{self, OpenMode};

/// How long the writer must have committed nothing before the thread checkpoints.
const QUIET: Duration = Duration::from_millis(20);

/// What the writer tells the checkpoint thread.
enum Signal {
    /// A transaction committed: the log grew.
    Committed,
    /// The store closes: checkpoint what is there and stop.
    Stop,
}

/// The checkpoint thread of one store.
pub(crate) struct WalCheckpoints {
    signal: SyncSender<Signal>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for WalCheckpoints {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalCheckpoints").finish_non_exhaustive()
    }
}

impl WalCheckpoints {
    /// Starts the thread on a connection of its own to `path`; `None` (with a warning)
    /// when it cannot start — SQLite's automatic checkpoint then does all the work.
    pub(crate) fn start(path: &Path, busy_timeout: Duration) -> Option<Self> {
        let conn = match open::connection(path, OpenMode::ReadWrite, busy_timeout) {
            Ok(conn) => conn,
            Err(err) => {
                tracing::warn!(%err, "no checkpoint thread: its connection did not open");
                return None;
            }
        };
        let (signal, signals) = sync_channel(1);
        match std::thread::Builder::new()
            .name("sqlite-checkpoints".into())
            .spawn(move || run(&conn, &signals))
        {
            Ok(thread) => Some(Self {
                signal,
                thread: Some(thread),
            }),
            Err(err) => {
                tracing::warn!(%err, "no checkpoint thread: it could not start");
                None
            }
        }
    }

    /// A transaction committed (never waits: one wake-up pending is enough).
    pub(crate) fn committed(&self) {
        // Full: a wake-up is pending already. Disconnected: the thread has stopped.
        let _ = self.signal.try_send(Signal::Committed);
    }

    /// Checkpoints what is left and waits for the thread to end (nothing to do when it
    /// has ended already).
    pub(crate) fn stop(&mut self) {
        let Some(thread) = self.thread.take() else {
            return;
        };
        // Blocks only while a pending wake-up is taken, which the thread does at once.
        let _ = self.signal.send(Signal::Stop);
        if thread.join().is_err() {
            tracing::warn!("the checkpoint thread panicked");
        }
    }
}

impl Drop for WalCheckpoints {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Waits for a commit, then for [`QUIET`] without one, then checkpoints.
fn run(conn: &Connection, signals: &Receiver<Signal>) {
    while let Ok(Signal::Committed) = signals.recv() {
        let stop = loop {
            match signals.recv_timeout(QUIET) {
                Ok(Signal::Committed) => {}
                Ok(Signal::Stop) | Err(RecvTimeoutError::Disconnected) => break true,
                Err(RecvTimeoutError::Timeout) => break false,
            }
        };
        checkpoint(conn);
        if stop {
            return;
        }
    }
}

/// One `PASSIVE` checkpoint: as much of the log as no reader still needs.
fn checkpoint(conn: &Connection) {
    if let Err(err) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
        tracing::debug!(%err, "a checkpoint of the write-ahead log failed");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn file_len(path: &Path) -> u64 {
        std::fs::metadata(path).unwrap().len()
    }

    #[test]
    fn commits_reach_the_database_file_through_the_thread_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let writer = Connection::open(&path).unwrap();
        writer
            .execute_batch(
                "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; \
                 CREATE TABLE t (x TEXT);",
            )
            .unwrap();
        let before = file_len(&path);
        let mut thread = WalCheckpoints::start(&path, Duration::from_secs(1)).unwrap();
        for i in 0..50 {
            writer
                .execute("INSERT INTO t VALUES (?1)", [format!("row {i}")])
                .unwrap();
            thread.committed();
        }
        // No connection checkpoints on its own (automatic checkpoints are off): the
        // rows reach the database file only if the thread copies them there.
        let mut grown = false;
        for _ in 0..300 {
            if file_len(&path) > before {
                grown = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(grown, "the database file stayed at {before} bytes");
        thread.stop();
        let count: i64 = writer
            .query_row("SELECT count(*) FROM t", [], |row| row.get(0))
            .unwrap();
        assert_eq!(count, 50);
    }
}
