//! The link between the processes on one PostgreSQL database: every event this
//! process's bus emits is published over `LISTEN`/`NOTIFY`, and every event another
//! process published is handed to this process's bus, so a page served here follows a
//! turn that runs in another server process. The same channel carries requests to
//! cancel a turn that runs in another process, and their answers (`peers.rs`).
//!
//! Shutdown is explicit: [`PeerLink::close`] stops the receiving task and waits for it,
//! then sends what is still queued; only then may the store's pool be closed (the
//! binary's composition root keeps that order).
//!
//! What cannot be relayed is a warning (`tracing`), never a failure of the turn: the
//! turn runs and is stored either way; only the other processes' live view misses it.

mod peers;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use smallebot_application::events::{Event, EventBus, EventRelay};
use smallebot_application::pipeline::ActiveTurns;
use smallebot_application::ports::PeerTurns;
use smallebot_postgres::{PgBroadcast, PgInbox, PgStore, PgStoreError};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use peers::PgPeers;

/// How long the receiving task waits before listening again after the database could
/// not be reached.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Publishes this process's events on the database.
#[derive(Debug)]
struct PgRelay(Arc<PgBroadcast>);

impl EventRelay for PgRelay {
    fn publish(&self, event: &Event) {
        match serde_json::to_value(event) {
            Ok(message) => self.0.publish(message),
            Err(error) => {
                tracing::warn!(%error, "cannot encode an event for the other processes");
            }
        }
    }
}

/// What the services of a process on a PostgreSQL database share: one event bus
/// relayed to and from the other processes, one registry of the turns running here
/// (so another process's request to cancel one finds it), and the peers such requests
/// go to. Built once per process; each service is given its parts ([`PeerLink::bus`],
/// [`PeerLink::turns`], [`PeerLink::peers`]).
#[derive(Debug)]
pub struct PeerLink {
    bus: Arc<EventBus>,
    turns: Arc<ActiveTurns>,
    peers: Arc<PgPeers>,
    broadcast: Arc<PgBroadcast>,
    stop: CancellationToken,
    receiver: tokio::sync::Mutex<Option<JoinHandle<()>>>,
}

impl PeerLink {
    /// Starts listening on `store`'s database and the receiving task.
    ///
    /// # Errors
    /// When the listening connection cannot be opened.
    pub async fn start(store: &PgStore) -> Result<Self, PgStoreError> {
        let (broadcast, inbox) = PgBroadcast::start(store).await?;
        let broadcast = Arc::new(broadcast);
        let bus = Arc::new(EventBus::with_relay(Arc::new(PgRelay(Arc::clone(
            &broadcast,
        )))));
        let turns = Arc::new(ActiveTurns::new());
        let peers = Arc::new(PgPeers::new(Arc::clone(&broadcast)));
        let stop = CancellationToken::new();
        let inbound = Inbound {
            bus: Arc::clone(&bus),
            turns: Arc::clone(&turns),
            peers: Arc::clone(&peers),
        };
        let receiver = tokio::spawn(receive(inbox, inbound, stop.clone()));
        Ok(Self {
            bus,
            turns,
            peers,
            broadcast,
            stop,
            receiver: tokio::sync::Mutex::new(Some(receiver)),
        })
    }

    /// The process's event bus, relayed to and from the other processes.
    pub fn bus(&self) -> Arc<EventBus> {
        Arc::clone(&self.bus)
    }

    /// The process's registry of running turns, where other processes' cancel
    /// requests look.
    pub fn turns(&self) -> Arc<ActiveTurns> {
        Arc::clone(&self.turns)
    }

    /// The other processes, for cancelling a turn that runs in one of them.
    pub fn peers(&self) -> Arc<dyn PeerTurns> {
        Arc::clone(&self.peers) as _
    }

    /// Stops the receiving task and waits for it (its listening connection goes back
    /// to the pool), then sends what is still queued. Call before closing the store;
    /// calling it again does nothing more.
    pub async fn close(&self) {
        self.stop.cancel();
        if let Some(receiver) = self.receiver.lock().await.take() {
            let _ = receiver.await;
        }
        self.broadcast.close().await;
    }
}

impl Drop for PeerLink {
    fn drop(&mut self) {
        // Never outlive the link, even when `close` was not awaited.
        self.stop.cancel();
    }
}

/// Where the receiving task hands what arrives.
struct Inbound {
    bus: Arc<EventBus>,
    turns: Arc<ActiveTurns>,
    peers: Arc<PgPeers>,
}

impl Inbound {
    /// One message from another process: a cancel request or answer, else an event.
    fn handle(&self, message: Value) {
        if peers::is_control(&message) {
            self.peers.handle(&message, &self.turns);
            return;
        }
        match serde_json::from_value::<Event>(message) {
            Ok(event) => {
                self.bus.emit_relayed(event);
            }
            Err(error) => {
                tracing::warn!(%error, "ignored an event from another process");
            }
        }
    }
}

/// Hands every message other processes publish to `inbound`, until `stop` or until the
/// store's pool is closed.
async fn receive(mut inbox: PgInbox, inbound: Inbound, stop: CancellationToken) {
    loop {
        let received = tokio::select! {
            () = stop.cancelled() => return,
            received = inbox.recv() => received,
        };
        match received {
            Ok(Some(messages)) => {
                for message in messages {
                    inbound.handle(message);
                }
            }
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(
                    %error,
                    "cannot receive events from the other server processes; trying again"
                );
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(RETRY_AFTER) => {}
                }
            }
        }
    }
}
