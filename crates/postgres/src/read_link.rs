//! The store's own read connection, for the reads on a turn's path (its conversation,
//! the rows of its context): taken when free, else a pooled connection serves. It
//! spares those reads the pool's hand-out and check-in — sqlx pings the server when a
//! connection comes back, a second round trip and another wake-up of the server's
//! process after every read.
//!
//! The connection is out of the pool (detached), like the writer's. A read that
//! succeeds puts it back ([`ReadConn::keep`]); one that fails or whose caller stops
//! waiting drops it (closing it: a statement may be half answered), and the next read
//! takes a new one. One that sat idle is pinged before use.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use sqlx::pool::PoolConnection;
use sqlx::{Connection as _, PgConnection, PgPool, Postgres};

use crate::connect::PING_AFTER_IDLE;

/// The own read connection, when it is not in use.
#[derive(Debug)]
enum Slot {
    /// Free, last used then.
    Free(PgConnection, Instant),
    /// A read has it.
    InUse,
    /// None yet (or dropped): the next read takes one.
    Empty,
    /// The store was closed: reads use the pool.
    Closed,
}

/// The store's own read connection; clones share it.
#[derive(Debug, Clone)]
pub(crate) struct ReadLink {
    pool: PgPool,
    slot: Arc<Mutex<Slot>>,
}

/// A connection for one read: the own one, or a pooled one when that is in use.
#[derive(Debug)]
pub(crate) enum ReadConn {
    /// The own connection, given back by [`ReadConn::keep`].
    Own(PgConnection, InUse),
    /// A pooled connection.
    Pooled(PoolConnection<Postgres>),
}

/// The own connection's slot while a read has it: left empty when dropped before the
/// read gave the connection back (a failed or abandoned read; its connection is
/// dropped with it).
#[derive(Debug)]
pub(crate) struct InUse(Arc<Mutex<Slot>>);

impl InUse {
    fn slot(&self) -> std::sync::MutexGuard<'_, Slot> {
        // Every change of the slot is one assignment: a panic elsewhere leaves it whole.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        let mut slot = self.slot();
        if matches!(*slot, Slot::InUse) {
            *slot = Slot::Empty;
        }
    }
}

impl ReadLink {
    /// No connection yet: the first read takes one of `pool`.
    pub(crate) fn new(pool: PgPool) -> Self {
        Self {
            pool,
            slot: Arc::new(Mutex::new(Slot::Empty)),
        }
    }

    /// A connection for one read.
    pub(crate) async fn acquire(&self) -> Result<ReadConn, sqlx::Error> {
        // The own connection (or none yet), when no read has it and the store is open.
        let taken = {
            let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
            match std::mem::replace(&mut *slot, Slot::InUse) {
                Slot::Free(conn, used) => Some(Some((conn, used))),
                Slot::Empty => Some(None),
                other @ (Slot::InUse | Slot::Closed) => {
                    *slot = other;
                    None
                }
            }
        };
        let Some(taken) = taken else {
            return Ok(ReadConn::Pooled(self.pool.acquire().await?));
        };
        // From here a failure leaves the slot empty.
        let guard = InUse(Arc::clone(&self.slot));
        let kept = match taken {
            Some((conn, used)) if used.elapsed() < PING_AFTER_IDLE => Some(conn),
            Some((mut conn, _)) => conn.ping().await.is_ok().then_some(conn),
            None => None,
        };
        let conn = match kept {
            Some(conn) => conn,
            None => self.pool.acquire().await?.detach(),
        };
        Ok(ReadConn::Own(conn, guard))
    }

    /// Closes the own connection; reads use the pool from now on.
    pub(crate) async fn close(&self) {
        let slot = std::mem::replace(
            &mut *self.slot.lock().unwrap_or_else(PoisonError::into_inner),
            Slot::Closed,
        );
        if let Slot::Free(conn, _) = slot {
            let _ = conn.close().await;
        }
    }
}

impl ReadConn {
    /// The read succeeded: the own connection goes back for the next read.
    pub(crate) fn keep(self) {
        if let Self::Own(conn, guard) = self {
            let mut slot = guard.slot();
            if matches!(*slot, Slot::InUse) {
                *slot = Slot::Free(conn, Instant::now());
            }
        }
    }
}

impl std::ops::Deref for ReadConn {
    type Target = PgConnection;

    fn deref(&self) -> &PgConnection {
        match self {
            Self::Own(conn, _) => conn,
            Self::Pooled(conn) => conn,
        }
    }
}

impl std::ops::DerefMut for ReadConn {
    fn deref_mut(&mut self) -> &mut PgConnection {
        match self {
            Self::Own(conn, _) => conn,
            Self::Pooled(conn) => conn,
        }
    }
}
