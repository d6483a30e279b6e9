//! Checkpoints of the write-ahead log in the writer's pauses, off its path.
//!
//! SQLite's own (automatic) checkpoint runs inside the `COMMIT` that pushes the log past
//! its length (300 pages on the write connection, `write.rs`): that commit copies the log's pages into the database file and syncs both
//! files before it returns, and every write queued behind it waits (10–25 ms measured on
//! a small virtual machine, most of it the two syncs). Here a thread of the store's own,
//! on a connection of its own, checkpoints whenever the writer has paused for [`QUIET`]
//! after a commit (a turn waiting for its model): a `PASSIVE` checkpoint, which blocks
//! no writer or reader, and with nothing written meanwhile it catches up with the log,
//! so the log starts from its beginning again and the automatic checkpoint is rarely
//! reached. Under a steady stream of writes there is no pause: the automatic checkpoint
//! does the work as before (a checkpoint beside steady writes never catches up, the log
//! would only grow, and the syncs beside the writes measured worse than the writer's
//! own).
//!
//! Starting the log again costs a sync too: the first commit after a complete
//! checkpoint writes a new log header, which SQLite syncs before that commit returns
//! (even with `synchronous = NORMAL`: frames of the old log are still in the file). Left
//! to the writer, that sync would delay the first write after every pause — the step
//! that follows each model answer (0.3–2 ms measured, more on a busy disk). So the
//! thread starts the log itself, right after its checkpoint, with a write that changes
//! nothing, made on the write connection (when it is free): made on the thread's own
//! connection, it would make the writer drop its page cache and read the pages again.

use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, TryLockError};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use crate::open::{self, OpenMode};

/// How long the writer must have committed nothing before the thread checkpoints.
const QUIET: Duration = Duration::from_millis(20);

/// The store's write connection (`None` once closed), shared with the checkpoint
/// thread, which uses it only while no batch does.
pub(crate) type WriteConnection = Arc<Mutex<Option<Connection>>>;

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
    /// Starts the thread on a connection of its own to `path`, starting the log again
    /// on `writer`; `None` (with a warning) when it cannot start — SQLite's automatic
    /// checkpoint then does all the work. Neither waits for a lock: what they would
    /// wait for, the writer does.
    pub(crate) fn start(path: &Path, writer: WriteConnection) -> Option<Self> {
        let conn = match open::connection(path, OpenMode::ReadWrite, Duration::ZERO) {
            Ok(conn) => conn,
            Err(err) => {
                tracing::warn!(%err, "no checkpoint thread: its connection did not open");
                return None;
            }
        };
        let (signal, signals) = sync_channel(1);
        match std::thread::Builder::new()
            .name("sqlite-checkpoints".into())
            .spawn(move || run(&conn, &writer, &signals))
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

/// Waits for a commit, then for [`QUIET`] without one, then checkpoints and, when the
/// checkpoint caught up with the whole log, starts it again on `writer`.
fn run(conn: &Connection, writer: &WriteConnection, signals: &Receiver<Signal>) {
    while let Ok(Signal::Committed) = signals.recv() {
        let stop = loop {
            match signals.recv_timeout(QUIET) {
                Ok(Signal::Committed) => {}
                Ok(Signal::Stop) | Err(RecvTimeoutError::Disconnected) => break true,
                Err(RecvTimeoutError::Timeout) => break false,
            }
        };
        let caught_up = checkpoint(conn);
        if stop {
            return;
        }
        if caught_up {
            restart_log(writer);
        }
    }
}

/// One `PASSIVE` checkpoint: as much of the log as no reader still needs. Whether that
/// was all of it.
fn checkpoint(conn: &Connection) -> bool {
    let frames = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, i64>(2)?,
        ))
    });
    match frames {
        Ok((busy, logged, copied)) => busy == 0 && logged > 0 && copied == logged,
        Err(err) => {
            tracing::debug!(%err, "a checkpoint of the write-ahead log failed");
            false
        }
    }
}

/// Starts the checkpointed log again on the write connection with a write that changes
/// nothing (`user_version` set to what it is), so that the log's new header is written
/// and synced here. Nothing is done while a batch uses the connection or another
/// process holds the write lock: the next commit starts the log itself then.
fn restart_log(writer: &WriteConnection) {
    let mut slot = match writer.try_lock() {
        Ok(slot) => slot,
        Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
        Err(TryLockError::WouldBlock) => return,
    };
    let Some(conn) = slot.as_mut() else {
        return;
    };
    let restarted = conn
        .busy_timeout(Duration::ZERO)
        .and_then(|()| conn.execute_batch("BEGIN IMMEDIATE"))
        .and_then(|()| {
            let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
            conn.execute_batch(&format!("PRAGMA user_version = {version}; COMMIT"))
        });
    if let Err(err) = restarted {
        if !conn.is_autocommit() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        tracing::debug!(%err, "the write-ahead log was not started again");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn file_len(path: &Path) -> u64 {
        std::fs::metadata(path).unwrap().len()
    }

    /// The write connection of a test: WAL, no automatic checkpoints, a table `t`.
    fn writer(path: &Path) -> WriteConnection {
        let conn = Connection::open(path).unwrap();
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; \
             CREATE TABLE t (x TEXT);",
        )
        .unwrap();
        Arc::new(Mutex::new(Some(conn)))
    }

    fn insert(writer: &WriteConnection, i: usize) {
        let slot = writer.lock().unwrap();
        slot.as_ref()
            .unwrap()
            .execute("INSERT INTO t VALUES (?1)", [format!("row {i}")])
            .unwrap();
    }

    fn count(writer: &WriteConnection) -> i64 {
        let slot = writer.lock().unwrap();
        slot.as_ref()
            .unwrap()
            .query_row("SELECT count(*) FROM t", [], |row| row.get(0))
            .unwrap()
    }

    /// The log header's checkpoint sequence number: it grows each time the log is
    /// started again (and its new header written).
    fn log_sequence(path: &Path) -> u32 {
        let bytes = std::fs::read(path.with_extension("db-wal")).unwrap();
        u32::from_be_bytes(bytes[12..16].try_into().unwrap())
    }

    /// Polls `done` for up to three seconds.
    fn eventually(mut done: impl FnMut() -> bool) -> bool {
        for _ in 0..300 {
            if done() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    #[test]
    fn commits_reach_the_database_file_through_the_thread_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let writer = writer(&path);
        let before = file_len(&path);
        let mut thread = WalCheckpoints::start(&path, Arc::clone(&writer)).unwrap();
        for i in 0..50 {
            insert(&writer, i);
            thread.committed();
        }
        // No connection checkpoints on its own (automatic checkpoints are off): the
        // rows reach the database file only if the thread copies them there.
        assert!(
            eventually(|| file_len(&path) > before),
            "the database file stayed at {before} bytes"
        );
        thread.stop();
        assert_eq!(count(&writer), 50);
    }

    #[test]
    fn the_log_is_started_again_in_the_pause_not_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let writer = writer(&path);
        let thread = WalCheckpoints::start(&path, Arc::clone(&writer)).unwrap();
        insert(&writer, 0);
        let sequence = log_sequence(&path);
        thread.committed();
        // Nothing is written meanwhile: only the thread can have started the log again
        // (its new header written, with the next sequence number).
        assert!(
            eventually(|| log_sequence(&path) == sequence + 1),
            "the log was not started again after the checkpoint (sequence {})",
            log_sequence(&path)
        );
        // The next write appends to the started log; what it wrote to start it changed
        // nothing.
        insert(&writer, 1);
        assert_eq!(log_sequence(&path), sequence + 1);
        assert_eq!(count(&writer), 2);
        let slot = writer.lock().unwrap();
        let version: i64 = slot
            .as_ref()
            .unwrap()
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .unwrap();
        assert_eq!(version, 0);
    }

    #[test]
    fn a_busy_write_connection_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let writer = writer(&path);
        insert(&writer, 0);
        let checkpointer = open::connection(&path, OpenMode::ReadWrite, Duration::ZERO).unwrap();
        assert!(checkpoint(&checkpointer), "the checkpoint caught up");
        let sequence = log_sequence(&path);
        let held = writer.lock().unwrap();
        // Returns at once, without the connection: the writer's next commit starts the
        // log itself.
        restart_log(&writer);
        assert_eq!(log_sequence(&path), sequence);
        drop(held);
        restart_log(&writer);
        assert_eq!(log_sequence(&path), sequence + 1);
    }
}
