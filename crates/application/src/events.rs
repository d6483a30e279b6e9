//! Events of a running turn, delivered to any number of subscribers.

use std::sync::Mutex;

use serde::Serialize;
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::ids::{ConversationId, TurnId};
use tokio::sync::mpsc;

/// Why a compression ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CompressionTrigger {
    /// Before a turn, the estimate reached the threshold.
    BeforeTurn,
    /// Between tool steps of a running turn.
    MidTurn,
    /// The provider answered "context length exceeded".
    Overflow,
    /// The person asked for it.
    Manual,
}

/// Something that happened in a conversation. Serialized as one JSON object with a
/// `type` field (`smallebot run --json` prints one per line).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum TurnEvent {
    /// A turn started (its user message is stored).
    TurnStarted {
        /// The conversation.
        conversation_id: ConversationId,
        /// The turn.
        turn_id: TurnId,
    },
    /// Streamed answer text.
    TextDelta {
        /// The conversation.
        conversation_id: ConversationId,
        /// The turn.
        turn_id: TurnId,
        /// The new text.
        text: String,
    },
    /// Streamed reasoning text.
    ReasoningDelta {
        /// The conversation.
        conversation_id: ConversationId,
        /// The turn.
        turn_id: TurnId,
        /// The new reasoning.
        text: String,
    },
    /// The model asked for a tool call; it is stored as running.
    ToolCallStarted {
        /// The conversation.
        conversation_id: ConversationId,
        /// The turn.
        turn_id: TurnId,
        /// The model's id for the call.
        call_id: String,
        /// The tool.
        tool_name: String,
        /// Its arguments (JSON text).
        arguments: String,
    },
    /// A tool call finished; its result is stored.
    ToolCallCompleted {
        /// The conversation.
        conversation_id: ConversationId,
        /// The turn.
        turn_id: TurnId,
        /// The model's id for the call.
        call_id: String,
        /// The tool.
        tool_name: String,
        /// How it ended.
        status: ToolCallStatus,
        /// The result (full text).
        result: String,
    },
    /// Context compression started.
    CompressionStarted {
        /// The conversation.
        conversation_id: ConversationId,
        /// Why.
        trigger: CompressionTrigger,
    },
    /// Context compression ended.
    CompressionCompleted {
        /// The conversation.
        conversation_id: ConversationId,
        /// Why it ran.
        trigger: CompressionTrigger,
        /// Whether a summary was stored.
        ok: bool,
        /// What happened, in words.
        detail: String,
        /// Context estimate before.
        tokens_before: u64,
        /// Context estimate after (equal to before when it failed).
        tokens_after: u64,
    },
    /// How full the context window is for the request about to be sent.
    ContextUsage {
        /// The conversation.
        conversation_id: ConversationId,
        /// Estimated tokens of the request.
        used: u64,
        /// The model's context window.
        window: u64,
        /// `used / window`.
        ratio: f64,
        /// Prompt tokens the provider reported for this same request (sent again
        /// once the response arrived), if it reports usage.
        reported: Option<u64>,
    },
    /// The conversation's task list (plan) changed.
    TaskListChanged {
        /// The conversation.
        conversation_id: ConversationId,
        /// The plan as displayed.
        plan: String,
    },
    /// The conversation got a (new) title.
    TitleChanged {
        /// The conversation.
        conversation_id: ConversationId,
        /// The title.
        title: String,
    },
    /// The turn finished normally.
    TurnCompleted {
        /// The conversation.
        conversation_id: ConversationId,
        /// The turn.
        turn_id: TurnId,
        /// The final answer text (of the last model step).
        text: String,
    },
    /// The turn was cancelled; partial text is stored.
    TurnCancelled {
        /// The conversation.
        conversation_id: ConversationId,
        /// The turn.
        turn_id: TurnId,
    },
    /// The turn failed; partial text and the error are stored.
    TurnFailed {
        /// The conversation.
        conversation_id: ConversationId,
        /// The turn.
        turn_id: TurnId,
        /// What went wrong.
        error: String,
    },
}

impl TurnEvent {
    /// The conversation the event belongs to.
    #[must_use]
    pub fn conversation_id(&self) -> ConversationId {
        match self {
            Self::TurnStarted {
                conversation_id, ..
            }
            | Self::TextDelta {
                conversation_id, ..
            }
            | Self::ReasoningDelta {
                conversation_id, ..
            }
            | Self::ToolCallStarted {
                conversation_id, ..
            }
            | Self::ToolCallCompleted {
                conversation_id, ..
            }
            | Self::CompressionStarted {
                conversation_id, ..
            }
            | Self::CompressionCompleted {
                conversation_id, ..
            }
            | Self::ContextUsage {
                conversation_id, ..
            }
            | Self::TaskListChanged {
                conversation_id, ..
            }
            | Self::TitleChanged {
                conversation_id, ..
            }
            | Self::TurnCompleted {
                conversation_id, ..
            }
            | Self::TurnCancelled {
                conversation_id, ..
            }
            | Self::TurnFailed {
                conversation_id, ..
            } => *conversation_id,
        }
    }
}

/// Delivers events to every live subscriber, in order. Subscribers that were dropped
/// are forgotten. Never blocks the pipeline (unbounded queues).
#[derive(Debug, Default)]
pub struct EventBus {
    subscribers: Mutex<Vec<mpsc::UnboundedSender<TurnEvent>>>,
}

/// A subscriber's end: receive events with [`EventSubscription::recv`].
#[derive(Debug)]
pub struct EventSubscription {
    receiver: mpsc::UnboundedReceiver<TurnEvent>,
}

impl EventSubscription {
    /// The next event; `None` when the bus is gone.
    pub async fn recv(&mut self) -> Option<TurnEvent> {
        self.receiver.recv().await
    }

    /// The next event if one is already queued.
    pub fn try_recv(&mut self) -> Option<TurnEvent> {
        self.receiver.try_recv().ok()
    }
}

impl EventBus {
    /// A new bus without subscribers.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a subscriber that receives every event emitted from now on.
    pub fn subscribe(&self) -> EventSubscription {
        let (sender, receiver) = mpsc::unbounded_channel();
        if let Ok(mut subscribers) = self.subscribers.lock() {
            subscribers.push(sender);
        }
        EventSubscription { receiver }
    }

    /// Sends `event` to every subscriber.
    pub fn emit(&self, event: TurnEvent) {
        if let Ok(mut subscribers) = self.subscribers.lock() {
            subscribers.retain(|s| s.send(event.clone()).is_ok());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_subscriber_gets_every_event_in_order() {
        let bus = EventBus::new();
        let mut a = bus.subscribe();
        let mut b = bus.subscribe();
        let conversation_id = ConversationId::new();
        let turn_id = TurnId::new();
        for text in ["a", "b"] {
            bus.emit(TurnEvent::TextDelta {
                conversation_id,
                turn_id,
                text: text.into(),
            });
        }
        for sub in [&mut a, &mut b] {
            for expected in ["a", "b"] {
                match sub.recv().await.unwrap() {
                    TurnEvent::TextDelta { text, .. } => assert_eq!(text, expected),
                    other => panic!("{other:?}"),
                }
            }
        }
        drop(a);
        bus.emit(TurnEvent::TurnStarted {
            conversation_id,
            turn_id,
        });
        assert!(matches!(
            b.recv().await,
            Some(TurnEvent::TurnStarted { .. })
        ));
    }

    #[test]
    fn events_serialize_with_a_type_tag() {
        let json = serde_json::to_value(TurnEvent::TurnFailed {
            conversation_id: ConversationId::new(),
            turn_id: TurnId::new(),
            error: "boom".into(),
        })
        .unwrap();
        assert_eq!(json["type"], "TurnFailed");
        assert_eq!(json["error"], "boom");
    }
}
