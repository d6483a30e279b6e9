//! The per-conversation event bus.

use std::collections::HashMap;
use std::sync::Mutex;

use smallebot_core::ids::{ConversationId, TurnId};
use tokio::sync::mpsc;

use super::{Event, EventKind};

/// One conversation's counter and subscribers.
#[derive(Debug, Default)]
struct Channel {
    last_seq: u64,
    subscribers: Vec<mpsc::UnboundedSender<Event>>,
}

/// Delivers each conversation's events, in order, to that conversation's live
/// subscribers. Dropped subscribers are forgotten. Never blocks the pipeline
/// (unbounded queues: a turn must not wait for a slow reader).
#[derive(Debug, Default)]
pub struct EventBus {
    channels: Mutex<HashMap<ConversationId, Channel>>,
}

/// A subscriber's end: receive events with [`EventSubscription::recv`].
#[derive(Debug)]
pub struct EventSubscription {
    conversation_id: ConversationId,
    receiver: mpsc::UnboundedReceiver<Event>,
}

impl EventSubscription {
    /// The conversation this subscription follows.
    #[must_use]
    pub fn conversation_id(&self) -> ConversationId {
        self.conversation_id
    }

    /// The next event; `None` when the bus is gone.
    pub async fn recv(&mut self) -> Option<Event> {
        self.receiver.recv().await
    }

    /// The next event if one is already queued.
    pub fn try_recv(&mut self) -> Option<Event> {
        self.receiver.try_recv().ok()
    }
}

impl EventBus {
    /// A new bus without subscribers.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Follows `conversation_id`: every event it emits from now on.
    pub fn subscribe(&self, conversation_id: ConversationId) -> EventSubscription {
        let (sender, receiver) = mpsc::unbounded_channel();
        if let Ok(mut channels) = self.channels.lock() {
            channels
                .entry(conversation_id)
                .or_default()
                .subscribers
                .push(sender);
        }
        EventSubscription {
            conversation_id,
            receiver,
        }
    }

    /// Numbers `kind` as the conversation's next event and sends it to the
    /// conversation's subscribers. Returns the event's `seq`.
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
        let seq = channel.last_seq;
        match channel.subscribers.as_mut_slice() {
            [] => {}
            [only] => {
                let event = Event {
                    conversation_id,
                    turn_id,
                    seq,
                    kind,
                };
                if only.send(event).is_err() {
                    channel.subscribers.clear();
                }
            }
            _ => {
                let event = Event {
                    conversation_id,
                    turn_id,
                    seq,
                    kind,
                };
                channel
                    .subscribers
                    .retain(|s| s.send(event.clone()).is_ok());
            }
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
