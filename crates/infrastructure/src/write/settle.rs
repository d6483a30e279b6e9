//! How a job runs inside the batch's transaction: in a savepoint of its own, its
//! answer held back until the transaction ended.

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::repository::RepoResult;
use tokio::sync::oneshot;

use crate::error::sqlite;

/// Where a job's answer goes.
pub(crate) type Reply<T> = oneshot::Sender<RepoResult<T>>;

/// Why a whole batch could not run (or commit): every job of it gets this error.
#[derive(Debug, Clone)]
pub(super) struct Refusal {
    /// What was being done.
    pub(super) action: &'static str,
    /// What SQLite said.
    pub(super) message: String,
    /// Whether the store could not be used at all (closed, locked by another process).
    pub(super) unavailable: bool,
}

impl Refusal {
    /// SQLite's `err` while doing `action`.
    pub(super) fn storage(action: &'static str, err: &rusqlite::Error) -> Self {
        Self {
            action,
            message: err.to_string(),
            unavailable: false,
        }
    }

    /// The store was closed.
    pub(super) fn closed() -> Self {
        Self {
            action: "writing to the database",
            message: "the store is closed".into(),
            unavailable: true,
        }
    }

    /// The error a job of the batch gets.
    pub(super) fn error(&self) -> RepositoryError {
        if self.unavailable {
            RepositoryError::Unavailable {
                action: self.action,
                message: self.message.clone(),
            }
        } else {
            RepositoryError::Storage {
                action: self.action,
                message: self.message.clone(),
            }
        }
    }
}

/// Sends a job's answer, given why its transaction did not commit (if it did not).
type Answer = Box<dyn FnOnce(Option<&Refusal>) + Send>;

/// A job that ran (or was refused), waiting for its transaction's end.
pub(super) struct Settled {
    send: Answer,
    /// Its savepoint could not be rolled back: the transaction must not commit.
    broken: bool,
}

impl Settled {
    /// Whether the transaction must be rolled back as a whole.
    pub(super) fn broken(&self) -> bool {
        self.broken
    }

    /// Answers the job: its own result, or — when the transaction did not commit —
    /// the refusal's error.
    pub(super) fn send(self, failed: Option<&Refusal>) {
        (self.send)(failed);
    }
}

/// Runs `work` in a savepoint and keeps its result for [`Settled::send`].
pub(super) fn settle<T: Send + 'static>(
    conn: Result<&Connection, &Refusal>,
    reply: Reply<T>,
    work: impl FnOnce(&Connection) -> RepoResult<T>,
) -> Settled {
    let (result, broken) = match conn {
        Ok(conn) => in_savepoint(conn, work),
        Err(refusal) => (Err(refusal.error()), false),
    };
    Settled {
        send: Box::new(move |failed| {
            let answer = match (failed, result) {
                (Some(refusal), Ok(_)) => Err(refusal.error()),
                (_, result) => result,
            };
            // The caller may be gone; the write stands (or not) either way.
            let _ = reply.send(answer);
        }),
        broken,
    }
}

/// Runs `work` inside `SAVEPOINT job`: released when it succeeds, rolled back to (so
/// nothing of it stays) when it fails. The flag says the rollback itself failed.
fn in_savepoint<T>(
    conn: &Connection,
    work: impl FnOnce(&Connection) -> RepoResult<T>,
) -> (RepoResult<T>, bool) {
    if let Err(err) = exec(conn, "SAVEPOINT job") {
        return (Err(sqlite("starting a write")(err)), false);
    }
    let result = work(conn);
    let ended = match &result {
        Ok(_) => exec(conn, "RELEASE job").map_err(|err| (err, false)),
        Err(_) => exec(conn, "ROLLBACK TO job")
            .and_then(|()| exec(conn, "RELEASE job"))
            .map_err(|err| (err, true)),
    };
    match (result, ended) {
        (result, Ok(())) => (result, false),
        (Err(own), Err((err, broken))) => {
            tracing::warn!(%err, "rolling back a failed write's savepoint failed");
            (Err(own), broken)
        }
        (Ok(_), Err((err, _))) => (Err(sqlite("ending a write")(err)), true),
    }
}

/// Runs one statement without parameters (cached).
pub(super) fn exec(conn: &Connection, sql: &str) -> Result<(), rusqlite::Error> {
    conn.prepare_cached(sql)?.execute([])?;
    Ok(())
}
