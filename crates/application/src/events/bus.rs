//! The per-conversation event bus: live delivery, a replay of the running turn's
//! events for subscribers that (re)connect, and bounded queues for remote readers.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use smallebot_core::ids::{ConversationId, TurnId};
use tokio::sync::mpsc;

use super::{Event, EventKind};

/// How many of a conversation's latest events the bus keeps for replay: those since
/// its latest turn started, at most this many (the oldest go first).
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
    /// At most this many undelivered events; a subscriber that falls further behind is
    /// dropped ([`EventSubscription::lagged`]) and the turn goes on.
    Bounded(usize),
}

/// One subscriber's sending end.
#[derive(Debug)]
enum Sender {
    Unbounded(mpsc::UnboundedSender<Event>),
    Bounded(mpsc::Sender<Event>, Arc<AtomicBool>),
}

impl Sender {
    /// Delivers `event`; false when the subscriber is gone or was dropped as lagging.
    fn deliver(&self, event: Event) -> bool {
        match self {
            Self::Unbounded(sender) => sender.send(event).is_ok(),
            Self::Bounded(sender, lagged) => match sender.try_send(event) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    lagged.store(true, Ordering::Relaxed);
                    false
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            },
        }
    }
}

/// One conversation's counter, kept events and subscribers.
#[derive(Debug, Default)]
struct Channel {
    last_seq: u64,
    /// The events since the latest `TurnStarted` (or all, before any), capped.
    kept: VecDeque<Event>,
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
        if self.kept.len() == REPLAY_EVENTS {
            self.kept.pop_front();
        }
        self.kept.push_back(event.clone());
        if !self.turn_running && self.kept.len() > KEPT_AFTER_TURN {
            let surplus = self.kept.len() - KEPT_AFTER_TURN;
            self.kept.drain(..surplus);
        }
    }

    /// The kept events `replay` asks for, and whether some it asks for are gone.
    fn replay(&self, replay: Replay) -> (Vec<Event>, bool) {
        match replay {
            Replay::Nothing => (Vec::new(), false),
            Replay::RunningTurn if self.turn_running => {
                (self.kept.iter().cloned().collect(), false)
            }
            Replay::RunningTurn => (Vec::new(), false),
            Replay::After(seq) if seq > self.last_seq => (Vec::new(), true),
            Replay::After(seq) => {
                let oldest_kept = self.kept.front().map_or(self.last_seq + 1, |e| e.seq);
                let missed = seq + 1 < oldest_kept;
                let events = self.kept.iter().filter(|e| e.seq > seq).cloned().collect();
                (events, missed)
            }
        }
    }
}

/// Delivers each conversation's events, in order, to that conversation's
/// subscribers. Dropped subscribers are forgotten. Never blocks the pipeline: queues
/// are unbounded or drop their subscriber when full.
#[derive(Debug, Default)]
pub struct EventBus {
    channels: Mutex<HashMap<ConversationId, Channel>>,
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
    Bounded(mpsc::Receiver<Event>),
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

    /// The next event if one is already queued.
    pub fn try_recv(&mut self) -> Option<Event> {
        match &mut self.receiver {
            Receiver::Unbounded(r) => r.try_recv().ok(),
            Receiver::Bounded(r) => r.try_recv().ok(),
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
            Capacity::Bounded(n) => {
                let (s, r) = mpsc::channel(n.max(1).max(past.len()));
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
    /// it to the conversation's subscribers. Returns the event's `seq`.
    pub fn emit(
        &self,
        conversation_id: ConversationId,
        turn_id: Option<TurnId>,
        kind: EventKind,
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
mod tests {
    use super::*;

    fn text(event: &Event) -> &str {
        match &event.kind {
            EventKind::TextDelta { text } => text,
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn every_subscriber_of_a_conversation_gets_its_events_in_order() {
        let bus = EventBus::new();
        let conversation = ConversationId::new();
        let turn = Some(TurnId::new());
        let mut a = bus.subscribe(conversation);
        let mut b = bus.subscribe(conversation);
        for t in ["a", "b"] {
            bus.emit(conversation, turn, EventKind::TextDelta { text: t.into() });
        }
        for sub in [&mut a, &mut b] {
            for (seq, expected) in [(1, "a"), (2, "b")] {
                let event = sub.recv().await.unwrap();
                assert_eq!((event.seq, text(&event)), (seq, expected));
                assert_eq!(event.conversation_id, conversation);
                assert_eq!(event.turn_id, turn);
            }
        }
        drop(a);
        bus.emit(conversation, turn, EventKind::TurnStarted);
        let event = b.recv().await.unwrap();
        assert_eq!((event.seq, event.kind), (3, EventKind::TurnStarted));
    }

    #[test]
    fn other_conversations_are_not_delivered_and_count_on_their_own() {
        let bus = EventBus::new();
        let (mine, theirs) = (ConversationId::new(), ConversationId::new());
        let mut sub = bus.subscribe(mine);
        assert_eq!(bus.emit(theirs, None, EventKind::TurnStarted), 1);
        assert_eq!(bus.emit(theirs, None, EventKind::TurnStarted), 2);
        assert!(sub.try_recv().is_none());
        assert_eq!(bus.emit(mine, None, EventKind::TurnStarted), 1);
        assert_eq!(sub.try_recv().map(|e| e.seq), Some(1));
    }

    #[test]
    fn the_count_goes_on_when_nobody_listens() {
        let bus = EventBus::new();
        let conversation = ConversationId::new();
        bus.emit(conversation, None, EventKind::TurnStarted);
        let mut late = bus.subscribe(conversation);
        bus.emit(conversation, None, EventKind::TurnCancelled);
        assert_eq!(late.try_recv().map(|e| e.seq), Some(2));
    }

    fn seqs(sub: &mut EventSubscription) -> Vec<u64> {
        std::iter::from_fn(|| sub.try_recv().map(|e| e.seq)).collect()
    }

    #[test]
    fn a_subscriber_joining_mid_turn_gets_the_running_turn_replayed() {
        let bus = EventBus::new();
        let c = ConversationId::new();
        let turn = Some(TurnId::new());
        bus.emit(c, None, EventKind::TitleChanged { title: "t".into() }); // 1
        bus.emit(c, turn, EventKind::TurnStarted); // 2
        bus.emit(c, turn, EventKind::TextDelta { text: "Hel".into() }); // 3
        let mut mid = bus.subscribe_with(c, Replay::RunningTurn, Capacity::Unbounded);
        bus.emit(c, turn, EventKind::TextDelta { text: "lo".into() }); // 4
        assert_eq!(seqs(&mut mid), [2, 3, 4]);
        assert!(!mid.missed_events());
        bus.emit(
            c,
            turn,
            EventKind::TurnCompleted {
                text: "Hello".into(),
            },
        ); // 5
        // Once the turn ended there is nothing running to replay.
        let mut after = bus.subscribe_with(c, Replay::RunningTurn, Capacity::Unbounded);
        assert_eq!(seqs(&mut after), Vec::<u64>::new());
    }

    #[test]
    fn a_reconnecting_subscriber_gets_what_it_missed_or_is_told_it_cannot() {
        let bus = EventBus::new();
        let c = ConversationId::new();
        let turn = Some(TurnId::new());
        bus.emit(c, turn, EventKind::TurnStarted); // 1
        for _ in 0..3 {
            bus.emit(c, turn, EventKind::TextDelta { text: "x".into() }); // 2..4
        }
        let mut back = bus.subscribe_with(c, Replay::After(2), Capacity::Bounded(16));
        assert_eq!(seqs(&mut back), [3, 4]);
        assert!(!back.missed_events());
        // A new turn drops the old one's events: an id from it cannot be resumed.
        bus.emit(c, Some(TurnId::new()), EventKind::TurnStarted); // 5
        let gap = bus.subscribe_with(c, Replay::After(2), Capacity::Bounded(16));
        assert!(gap.missed_events());
        let fresh = bus.subscribe_with(c, Replay::After(4), Capacity::Bounded(16));
        assert!(!fresh.missed_events(), "5 is kept: nothing was missed");
        // An id from a previous run of the process (ahead of this bus) is a gap too.
        let stale = bus.subscribe_with(c, Replay::After(900), Capacity::Bounded(16));
        assert!(stale.missed_events());
    }

    #[test]
    fn replay_keeps_only_the_latest_events() {
        let bus = EventBus::new();
        let c = ConversationId::new();
        let turn = Some(TurnId::new());
        bus.emit(c, turn, EventKind::TurnStarted);
        for _ in 0..REPLAY_EVENTS + 10 {
            bus.emit(c, turn, EventKind::TextDelta { text: "x".into() });
        }
        let mut all = bus.subscribe_with(c, Replay::RunningTurn, Capacity::Unbounded);
        let got = seqs(&mut all);
        assert_eq!(got.len(), REPLAY_EVENTS);
        assert_eq!(got.last(), Some(&(REPLAY_EVENTS as u64 + 11)));
        let resumed = bus.subscribe_with(c, Replay::After(1), Capacity::Unbounded);
        assert!(resumed.missed_events());
    }

    #[test]
    fn an_ended_turn_keeps_only_its_last_events() {
        let bus = EventBus::new();
        let c = ConversationId::new();
        let turn = Some(TurnId::new());
        bus.emit(c, turn, EventKind::TurnStarted);
        for _ in 0..500 {
            bus.emit(c, turn, EventKind::TextDelta { text: "x".into() }); // 2..501
        }
        let end = bus.emit(c, turn, EventKind::TurnCompleted { text: "x".into() }); // 502
        let kept = KEPT_AFTER_TURN as u64;
        let mut near_end = bus.subscribe_with(c, Replay::After(end - kept), Capacity::Unbounded);
        assert!(!near_end.missed_events());
        assert_eq!(seqs(&mut near_end).len(), KEPT_AFTER_TURN);
        let early = bus.subscribe_with(c, Replay::After(10), Capacity::Unbounded);
        assert!(early.missed_events(), "the turn's early events are let go");
    }

    #[tokio::test]
    async fn a_subscriber_that_stops_reading_is_dropped_and_the_others_go_on() {
        let bus = EventBus::new();
        let c = ConversationId::new();
        let mut slow = bus.subscribe_with(c, Replay::Nothing, Capacity::Bounded(4));
        let mut live = bus.subscribe(c);
        for i in 0..10 {
            bus.emit(
                c,
                None,
                EventKind::TextDelta {
                    text: i.to_string(),
                },
            );
        }
        assert_eq!(seqs(&mut live).len(), 10);
        // It gets what fitted, then the end, and learns why.
        assert_eq!(seqs(&mut slow), [1, 2, 3, 4]);
        assert!(slow.recv().await.is_none());
        assert!(slow.lagged());
        assert!(!live.lagged());
    }

    #[test]
    fn events_serialize_as_one_flat_object_with_a_type() {
        let conversation = ConversationId::new();
        let turn = TurnId::new();
        let json = serde_json::to_value(Event {
            conversation_id: conversation,
            turn_id: Some(turn),
            seq: 7,
            kind: EventKind::TurnFailed {
                error: "boom".into(),
            },
        })
        .unwrap();
        assert_eq!(json["type"], "TurnFailed");
        assert_eq!(json["error"], "boom");
        assert_eq!(json["seq"], 7);
        assert_eq!(json["conversation_id"], conversation.to_string());
        assert_eq!(json["turn_id"], turn.to_string());
        let untitled = serde_json::to_value(Event {
            conversation_id: conversation,
            turn_id: None,
            seq: 1,
            kind: EventKind::TurnCancelled,
        })
        .unwrap();
        assert!(untitled.get("turn_id").is_none(), "{untitled}");
        assert_eq!(untitled["type"], "TurnCancelled");
    }
}
