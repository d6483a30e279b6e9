//! The link between the processes on one PostgreSQL database: every event this
//! process's bus emits is published over `LISTEN`/`NOTIFY`, and every event another
//! process published is handed to this process's bus, so a page served here follows a
//! turn that runs in another server process. The same channel carries requests to
//! cancel a turn that runs in another process, and their answers (`peers.rs`).
//!
//! Shutdown is explicit: [`PeerLink::close`] stops the receiving task and waits for it,
//! then sends what is still queued; only then may the store's pool be closed
//! ([`crate::wiring::App::close`] keeps that order).

mod peers;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_application::events::{Event, EventBus, EventRelay};
use smallebot_application::pipeline::ActiveTurns;
use smallebot_postgres::{PgBroadcast, PgInbox, PgStore};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::HostError;
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
                errln!("warning: cannot encode an event for the other processes: {error}")
            }
        }
    }
}

/// What the services of a process on a PostgreSQL database share: one event bus
/// relayed to and from the other processes, one registry of the turns running here
/// (so another process's request to cancel one finds it), and the peers such requests
/// go to. Built once per process; [`PeerLink::wire`] gives each service its parts.
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
    pub async fn start(store: &PgStore) -> Result<Self, HostError> {
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

    /// `assembly` with this process's shared bus, turn registry and peers.
    pub fn wire(&self, assembly: AgentAssembly) -> AgentAssembly {
        assembly
            .events(Arc::clone(&self.bus))
            .turns(Arc::clone(&self.turns))
            .peers(Arc::clone(&self.peers) as _)
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
                errln!("warning: ignored an event from another process: {error}");
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
                errln!(
                    "warning: cannot receive events from the other server processes: {error}; \
                     trying again"
                );
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(RETRY_AFTER) => {}
                }
            }
        }
    }
}
