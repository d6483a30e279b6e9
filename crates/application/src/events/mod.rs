//! Events of a conversation, delivered to the subscribers of that conversation.
//!
//! Every event is an [`Event`] envelope: the conversation and turn ids, carried once,
//! a `seq` that counts the conversation's events in this process from 1 without gaps
//! (so a consumer knows when it missed one), and the [`EventKind`] that says what
//! happened. Subscriptions are per conversation ([`EventBus::subscribe`]): a consumer
//! never filters other conversations' traffic.
//!
//! ```
//! use smallebot_application::events::{EventBus, EventKind};
//! use smallebot_core::ids::{ConversationId, TurnId};
//!
//! let bus = EventBus::new();
//! let conversation = ConversationId::new();
//! let mut mine = bus.subscribe(conversation);
//! bus.emit(conversation, Some(TurnId::new()), EventKind::TurnStarted);
//! bus.emit(ConversationId::new(), None, EventKind::TurnStarted); // someone else's
//! let event = mine.try_recv().unwrap();
//! assert_eq!((event.seq, event.kind), (1, EventKind::TurnStarted));
//! assert!(mine.try_recv().is_none());
//! ```

mod bus;

use serde::{Deserialize, Serialize};
use smallebot_core::ids::{ConversationId, TurnId};

pub use bus::{
    Capacity, EventBus, EventObserver, EventRelay, EventSubscription, JOINED_MAX, KEPT_AFTER_TURN,
    QueueLimits, REPLAY_EVENTS, Replay,
};
/// What an event says: the protocol's own types, so the web's stream, `run --json` and
/// every other front end read the same events (adding one is one change, there).
pub use smallebot_protocol::events::{
    CompressionTrigger, EventKind, SubAgentOutcome, ToolCallStatus,
};

/// One event of a conversation. As JSON (`smallebot run --json`, one per line):
/// `{"conversation_id":…,"turn_id":…,"seq":3,"type":"TextDelta","text":"Hi"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Event {
    /// The conversation.
    pub conversation_id: ConversationId,
    /// The turn, for events that belong to one (not for titles or manual compressions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<TurnId>,
    /// The conversation's event counter in this process: 1, 2, 3, … without gaps.
    pub seq: u64,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

impl Event {
    /// An event as a bus numbers it (buses and tests make them; consumers read them).
    #[must_use]
    pub fn new(
        conversation_id: ConversationId,
        turn_id: Option<TurnId>,
        seq: u64,
        kind: EventKind,
    ) -> Self {
        Self {
            conversation_id,
            turn_id,
            seq,
            kind,
        }
    }

    /// The event as the wire carries it (the ids as text).
    #[must_use]
    pub fn into_wire(self) -> smallebot_protocol::events::Event {
        smallebot_protocol::events::Event::new(
            self.conversation_id.to_string(),
            self.turn_id.map(|t| t.to_string()),
            self.seq,
            self.kind,
        )
    }

    /// A delta's text (`TextDelta`, `ReasoningDelta`); `None` for another event.
    pub(crate) fn delta_text(&self) -> Option<&str> {
        match &self.kind {
            EventKind::TextDelta { text } | EventKind::ReasoningDelta { text } => Some(text),
            _ => None,
        }
    }
}
