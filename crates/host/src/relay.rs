//! Turn events between processes on one PostgreSQL database: every event this
//! process's bus emits is published over `LISTEN`/`NOTIFY`, and every event another
//! process published is handed to this process's bus, so a page served here follows a
//! turn that runs in another server process.

use std::sync::Arc;
use std::time::Duration;

use smallebot_application::events::{Event, EventBus, EventRelay};
use smallebot_postgres::{PgBroadcast, PgInbox, PgStore};

use crate::error::HostError;

/// How long the receiving task waits before listening again after the database could
/// not be reached.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// Publishes this process's events on the database.
#[derive(Debug)]
struct PgRelay(PgBroadcast);

impl EventRelay for PgRelay {
    fn publish(&self, event: &Event) {
        match serde_json::to_value(event) {
            Ok(message) => self.0.publish(message),
            Err(error) => {
                eprintln!("warning: cannot encode an event for the other processes: {error}")
            }
        }
    }
}

/// A bus relayed to and from the other processes on `store`'s database. The receiving
/// task ends when the bus is dropped.
///
/// # Errors
/// When the listening connection cannot be opened.
pub async fn relayed_bus(store: &PgStore) -> Result<Arc<EventBus>, HostError> {
    let (broadcast, inbox) = PgBroadcast::start(store).await?;
    let bus = Arc::new(EventBus::with_relay(Arc::new(PgRelay(broadcast))));
    tokio::spawn(receive(inbox, Arc::downgrade(&bus)));
    Ok(bus)
}

/// Hands every event other processes publish to `bus` (numbered by it, not relayed
/// back), while the bus lives.
async fn receive(mut inbox: PgInbox, bus: std::sync::Weak<EventBus>) {
    loop {
        match inbox.recv().await {
            Ok(messages) => {
                let Some(bus) = bus.upgrade() else { return };
                for message in messages {
                    match serde_json::from_value::<Event>(message) {
                        Ok(event) => {
                            bus.emit_relayed(event);
                        }
                        Err(error) => {
                            eprintln!("warning: ignored an event from another process: {error}");
                        }
                    }
                }
            }
            Err(error) => {
                if bus.strong_count() == 0 {
                    return;
                }
                eprintln!(
                    "warning: cannot receive events from the other server processes: {error}; \
                     trying again"
                );
                tokio::time::sleep(RETRY_AFTER).await;
            }
        }
    }
}
