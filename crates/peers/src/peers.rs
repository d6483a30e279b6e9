//! Cancelling a turn that runs in another process: the request and its answer travel
//! on the event channel as control messages, beside the events.
//!
//! Process B, asked to cancel a conversation's turn it does not run, publishes
//! `{"control": "cancel", "request": R, "conversation_id": C}`. Every other process
//! looks in its registry of running turns; the one that runs C's turn cancels it (the
//! partial answer is kept, the turn ends `cancelled`) and publishes
//! `{"control": "cancelled", "request": R}`. The others stay silent, so B answers
//! "not cancelled" when no answer comes within [`ANSWER_WITHIN`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use smallebot_application::pipeline::ActiveTurns;
use smallebot_application::ports::PeerTurns;
use smallebot_core::ids::{ConversationId, MessageId};
use smallebot_postgres::PgBroadcast;
use tokio::sync::oneshot;

/// How long a cancel request waits for the owner's answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(3);

/// A control message between processes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Control {
    /// Cancel the running turn of this conversation, if it runs in your process.
    Cancel {
        request: String,
        conversation_id: ConversationId,
    },
    /// The turn `request` asked about was cancelled.
    Cancelled { request: String },
}

impl Control {
    fn to_message(&self) -> Value {
        match self {
            Self::Cancel {
                request,
                conversation_id,
            } => json!({
                "control": "cancel",
                "request": request,
                "conversation_id": conversation_id.to_string(),
            }),
            Self::Cancelled { request } => json!({"control": "cancelled", "request": request}),
        }
    }

    /// The control message `message` carries; `None` when it is not a well-formed one.
    fn parse(message: &Value) -> Option<Self> {
        let request = message.get("request")?.as_str()?.to_owned();
        match message.get("control")?.as_str()? {
            "cancel" => Some(Self::Cancel {
                request,
                conversation_id: message.get("conversation_id")?.as_str()?.parse().ok()?,
            }),
            "cancelled" => Some(Self::Cancelled { request }),
            _ => None,
        }
    }
}

/// Whether `message` is a control message (not an event).
pub(super) fn is_control(message: &Value) -> bool {
    message.get("control").is_some()
}

/// The other processes on the database, reached through the broadcast channel.
#[derive(Debug)]
pub(super) struct PgPeers {
    broadcast: Arc<PgBroadcast>,
    /// Cancel requests of this process still waiting for their answer, by request id.
    waiting: Mutex<HashMap<String, oneshot::Sender<()>>>,
}

impl PgPeers {
    pub(super) fn new(broadcast: Arc<PgBroadcast>) -> Self {
        Self {
            broadcast,
            waiting: Mutex::default(),
        }
    }

    /// A control message from another process: cancels a turn running here (and
    /// answers), or resolves a request of this process.
    pub(super) fn handle(&self, message: &Value, turns: &ActiveTurns) {
        match Control::parse(message) {
            Some(Control::Cancel {
                request,
                conversation_id,
            }) => {
                if turns.cancel(conversation_id) {
                    self.broadcast
                        .publish(Control::Cancelled { request }.to_message());
                }
            }
            Some(Control::Cancelled { request }) => {
                let waiter = self
                    .waiting
                    .lock()
                    .ok()
                    .and_then(|mut waiting| waiting.remove(&request));
                if let Some(waiter) = waiter {
                    let _ = waiter.send(());
                }
            }
            None => tracing::warn!("ignored a malformed message from another process"),
        }
    }
}

#[async_trait]
impl PeerTurns for PgPeers {
    async fn cancel(&self, conversation_id: ConversationId) -> bool {
        let request = MessageId::new().to_string();
        let (answer, answered) = oneshot::channel();
        match self.waiting.lock() {
            Ok(mut waiting) => waiting.insert(request.clone(), answer),
            Err(_) => return false,
        };
        self.broadcast.publish(
            Control::Cancel {
                request: request.clone(),
                conversation_id,
            }
            .to_message(),
        );
        let cancelled = matches!(
            tokio::time::timeout(ANSWER_WITHIN, answered).await,
            Ok(Ok(()))
        );
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.remove(&request);
        }
        cancelled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_messages_read_back_and_malformed_ones_are_refused() {
        let id = ConversationId::new();
        let cancel = Control::Cancel {
            request: "r1".to_owned(),
            conversation_id: id,
        };
        let answer = Control::Cancelled {
            request: "r1".to_owned(),
        };
        for control in [&cancel, &answer] {
            let message = control.to_message();
            assert!(is_control(&message));
            assert_eq!(Control::parse(&message).as_ref(), Some(control));
        }
        let refused = [
            json!({"control": "cancel", "request": "r"}),
            json!({"control": "cancel", "request": "r", "conversation_id": "not an id"}),
            json!({"control": "cancelled"}),
            json!({"control": "reboot", "request": "r"}),
            json!({"control": 1, "request": "r"}),
        ];
        for message in refused {
            assert_eq!(Control::parse(&message), None, "{message}");
        }
        let event = json!({"conversation_id": id.to_string(), "seq": 1});
        assert!(!is_control(&event));
    }
}
