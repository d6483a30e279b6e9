//! The per-conversation event bus: live delivery, a replay of the running turn's
//! events for subscribers that (re)connect, and bounded queues for remote readers.

mod kept;
mod queue;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use smallebot_core::ids::{ConversationId, TurnId};
use tokio::sync::mpsc;

use super::{Event, EventKind};
use kept::Kept;
pub use queue::{JOINED_MAX, QueueLimits};
use queue::{QueueReceiver, QueueSender, Refused};

/// How many of a conversation's latest events the bus keeps for replay: those since
/// its latest turn started, at most this many (the oldest go first). A run of
/// consecutive deltas counts once: an answer of any length is kept whole.
pub const REPLAY_EVENTS: usize = 4096;

/// How many events stay kept once a turn ended (enough for a client that lost its
/// connection just before the end to resume; fewer than a whole turn, so an idle
/// conversation holds little memory).
pub const KEPT_AFTER_TURN: usize = 64;

/// Which past events a new subscription receives before the live ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Replay {
    /// None: events from now on.
    Nothing,
    /// The kept events of the latest turn, if it is still running (a page opened in
    /// the middle of a turn shows its partial answer and running tool cards).
    RunningTurn,
    /// The events after this `seq` (a client reconnecting with the last id it saw).
    /// When some of them are no longer kept, the subscription says so
    /// ([`EventSubscription::missed_events`]): reload the conversation instead.
    After(u64),
}

/// How a subscription's queue is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Capacity {
    /// Never drops the subscriber (in-process readers that keep up by construction).
    Unbounded,
    /// At most this many undelivered events and bytes of delta text; a subscriber
    /// that falls further behind is dropped ([`EventSubscription::lagged`]) and the
    /// turn goes on. Consecutive deltas waiting in the queue are joined into one event
    /// (the later `seq`, at most [`JOINED_MAX`] bytes of text), so a reader slower than
    /// the model receives fewer, longer deltas rather than falling behind.
    Bounded(QueueLimits),
}

/// One subscriber's sending end.
#[derive(Debug)]
enum Sender {
    Unbounded(mpsc::UnboundedSender<Event>),
    Bounded(QueueSender, Arc<AtomicBool>),
}

impl Sender {
    /// Delivers `event`; false when the subscriber is gone or was dropped as lagging.
    fn deliver(&self, event: Event) -> bool {
        match self {
            Self::Unbounded(sender) => sender.send(event).is_ok(),
            Self::Bounded(sender, lagged) => match sender.push(event) {
                Ok(()) => true,
                Err(Refused::Full) => {
                    lagged.store(true, Ordering::Relaxed);
                    false
                }
                Err(Refused::Closed) => false,
            },
        }
    }
}

/// One conversation's counter, kept events and subscribers.
#[derive(Debug, Default)]
struct Channel {
    last_seq: u64,
    /// The events since the latest `TurnStarted` (or all, before any), capped.
    kept: Kept,
    /// Whether the latest turn is still running.
    turn_running: bool,
    subscribers: Vec<Sender>,
}

impl Channel {
    fn keep(&mut self, event: &Event) {
        if matches!(event.kind, EventKind::TurnStarted) {
            self.kept.clear();
            self.turn_running = true;
        } else if event.kind.ends_turn() {
            self.turn_running = false;
        }
        self.kept.push(event, REPLAY_EVENTS);
        if !self.turn_running {
            self.kept.keep_latest(KEPT_AFTER_TURN);
        }
    }

    /// The kept events `replay` asks for, and whether some it asks for are gone.
    fn replay(&self, replay: Replay) -> (Vec<Event>, bool) {
        match replay {
            Replay::Nothing => (Vec::new(), false),
            Replay::RunningTurn if self.turn_running => (self.kept.all(), false),
            Replay::RunningTurn => (Vec::new(), false),
            Replay::After(seq) if seq > self.last_seq => (Vec::new(), true),
            Replay::After(seq) => {
                let oldest_kept = self.kept.oldest_seq().unwrap_or(self.last_seq + 1);
                let missed = seq + 1 < oldest_kept;
                (self.kept.after(seq), missed)
            }
        }
    }
}

/// Carries the events of this process to other processes that serve the same
/// conversations (several servers on one database), which hand them to their own bus
/// with [`EventBus::emit_relayed`]. `publish` must not block: it queues.
pub trait EventRelay: Send + Sync + std::fmt::Debug {
    /// Sends `event` (as numbered here) to the other processes.
    fn publish(&self, event: &Event);
}

/// Sees every event this process emits (not those relayed from other processes), in
/// each conversation's order, while the bus delivers it: `observe` must be quick and
/// never block (metrics count with atomics).
pub trait EventObserver: Send + Sync + std::fmt::Debug {
    /// One event, as numbered here.
    fn observe(&self, event: &Event);
}

/// Delivers each conversation's events, in order, to that conversation's
/// subscribers. Dropped subscribers are forgotten. Never blocks the pipeline: queues
/// are unbounded or drop their subscriber when full. With a relay
/// ([`EventBus::with_relay`]) the events emitted here also reach other processes.
#[derive(Debug, Default)]
pub struct EventBus {
    channels: Mutex<HashMap<ConversationId, Channel>>,
    relay: Option<std::sync::Arc<dyn EventRelay>>,
    observer: std::sync::OnceLock<Arc<dyn EventObserver>>,
}

/// A subscriber's end: receive events with [`EventSubscription::recv`].
#[derive(Debug)]
pub struct EventSubscription {
    conversation_id: ConversationId,
    receiver: Receiver,
    missed: bool,
    lagged: Arc<AtomicBool>,
}

#[derive(Debug)]
enum Receiver {
    Unbounded(mpsc::UnboundedReceiver<Event>),
    Bounded(QueueReceiver),
}

impl EventSubscription {
    /// The conversation this subscription follows.
    #[must_use]
    pub fn conversation_id(&self) -> ConversationId {
        self.conversation_id
    }

    /// The next event; `None` when the bus is gone or this subscriber was dropped for
    /// lagging ([`lagged`](Self::lagged)).
    pub async fn recv(&mut self) -> Option<Event> {
        match &mut self.receiver {
            Receiver::Unbounded(r) => r.recv().await,
            Receiver::Bounded(r) => r.recv().await,
        }
    }

    /// The next event without a future to keep (for a hand-written stream): `None`
    /// as [`recv`](Self::recv) says; pending, with `cx` woken when one comes, while
    /// none waits.
    pub fn poll_recv(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<Event>> {
        match &mut self.receiver {
            Receiver::Unbounded(r) => r.poll_recv(cx),
            Receiver::Bounded(r) => r.poll_recv(cx),
        }
    }

    /// The next event if one is already queued.
    pub fn try_recv(&mut self) -> Option<Event> {
        match &mut self.receiver {
            Receiver::Unbounded(r) => r.try_recv().ok(),
            Receiver::Bounded(r) => r.try_recv(),
        }
    }

    /// How many events are queued for this subscriber, not received yet (a consumer
    /// that falls behind sees it grow).
    #[must_use]
    pub fn queued(&self) -> usize {
        match &self.receiver {
            Receiver::Unbounded(r) => r.len(),
            Receiver::Bounded(r) => r.len(),
        }
    }

    /// Whether events the subscription asked to replay were no longer kept (so what it
    /// receives has a gap: reload the conversation's stored state instead).
    #[must_use]
    pub fn missed_events(&self) -> bool {
        self.missed
    }

    /// Whether the subscriber fell too far behind and was dropped (its queue was full).
    #[must_use]
    pub fn lagged(&self) -> bool {
        self.lagged.load(Ordering::Relaxed)
    }
}

impl EventBus {
    /// A new bus without subscribers.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A new bus whose emitted events also go to `relay`.
    #[must_use]
    pub fn with_relay(relay: std::sync::Arc<dyn EventRelay>) -> Self {
        Self {
            channels: Mutex::default(),
            relay: Some(relay),
            observer: std::sync::OnceLock::new(),
        }
    }

    /// Lets `observer` see every event emitted here from now on. A bus has one
    /// observer: the first one set stays (services sharing a bus each offer the same
    /// one, which must not count twice). Returns whether `observer` is the one.
    pub fn observe_with(&self, observer: Arc<dyn EventObserver>) -> bool {
        let kept = self.observer.get_or_init(|| Arc::clone(&observer));
        Arc::ptr_eq(kept, &observer)
    }

    /// Follows `conversation_id`: every event it emits from now on, unbounded.
    pub fn subscribe(&self, conversation_id: ConversationId) -> EventSubscription {
        self.subscribe_with(conversation_id, Replay::Nothing, Capacity::Unbounded)
    }

    /// Follows `conversation_id`, first receiving the kept events `replay` asks for,
    /// with a queue bounded as `capacity` says (the replay counts toward it).
    pub fn subscribe_with(
        &self,
        conversation_id: ConversationId,
        replay: Replay,
        capacity: Capacity,
    ) -> EventSubscription {
        let lagged = Arc::new(AtomicBool::new(false));
        let Ok(mut channels) = self.channels.lock() else {
            // A poisoned bus delivers nothing more; say so as a gap.
            let (_, receiver) = mpsc::unbounded_channel();
            return EventSubscription {
                conversation_id,
                receiver: Receiver::Unbounded(receiver),
                missed: true,
                lagged,
            };
        };
        let channel = channels.entry(conversation_id).or_default();
        let (past, missed) = channel.replay(replay);
        let (sender, receiver) = match capacity {
            Capacity::Unbounded => {
                let (s, r) = mpsc::unbounded_channel();
                (Sender::Unbounded(s), Receiver::Unbounded(r))
            }
            Capacity::Bounded(limits) => {
                // The replay always fits (a running answer's text is one event).
                let past_bytes = past
                    .iter()
                    .map(|e| e.delta_text().map_or(0, str::len))
                    .sum::<usize>();
                let limits = QueueLimits {
                    events: limits.events.max(past.len()),
                    bytes: limits.bytes.max(past_bytes),
                };
                let (s, r) = queue::queue(limits);
                (
                    Sender::Bounded(s, Arc::clone(&lagged)),
                    Receiver::Bounded(r),
                )
            }
        };
        let alive = past.into_iter().all(|event| sender.deliver(event));
        if alive {
            channel.subscribers.push(sender);
        }
        EventSubscription {
            conversation_id,
            receiver,
            missed,
            lagged,
        }
    }

    /// Numbers `kind` as the conversation's next event, keeps it for replay and sends
    /// it to the conversation's subscribers (and to the relay, if any). Returns the
    /// event's `seq`.
    pub fn emit(
        &self,
        conversation_id: ConversationId,
        turn_id: Option<TurnId>,
        kind: EventKind,
    ) -> u64 {
        self.deliver(conversation_id, turn_id, kind, true)
    }

    /// Delivers an event another process emitted (it came through a relay): numbered
    /// by this bus, kept and sent to the subscribers here, never relayed again.
    pub fn emit_relayed(&self, event: Event) -> u64 {
        self.deliver(event.conversation_id, event.turn_id, event.kind, false)
    }

    fn deliver(
        &self,
        conversation_id: ConversationId,
        turn_id: Option<TurnId>,
        kind: EventKind,
        local: bool,
    ) -> u64 {
        let Ok(mut channels) = self.channels.lock() else {
            return 0;
        };
        let channel = channels.entry(conversation_id).or_default();
        channel.last_seq += 1;
        let event = Event {
            conversation_id,
            turn_id,
            seq: channel.last_seq,
            kind,
        };
        channel.keep(&event);
        if local {
            if let Some(relay) = self.relay.as_deref() {
                relay.publish(&event);
            }
            if let Some(observer) = self.observer.get() {
                observer.observe(&event);
            }
        }
        let seq = event.seq;
        match channel.subscribers.as_mut_slice() {
            [] => {}
            [only] => {
                if !only.deliver(event) {
                    channel.subscribers.clear();
                }
            }
            _ => channel.subscribers.retain(|s| s.deliver(event.clone())),
        }
        seq
    }
}

#[cfg(test)]
mod tests;
