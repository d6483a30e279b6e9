//! [`PgBroadcast`]: messages from one process to every other process on the database,
//! over `LISTEN`/`NOTIFY` — how several server processes see each other's turn events.
//!
//! [`PgBroadcast::publish`] never blocks: it queues the message for a sending task,
//! which packs what is queued into as few notifications as fit (a payload holds at most
//! 8000 bytes) and sends them in order on one channel, through the store's writer (so a
//! notification leaves after the writes this process queued before it, and costs no
//! pooled connection). A message too large for one
//! notification is stored in `relayed_messages` and the notification carries its id.
//! Every notification names its origin, so a process skips its own. Notifications sent
//! while a listener was reconnecting are lost (PostgreSQL does not keep them): a
//! consumer treats the stream as live updates, never as the record.
//!
//! Shutting down, in this order: drop the [`PgInbox`] (its listening connection goes
//! back to the pool), [`PgBroadcast::close`] (what is queued is sent, then the sending
//! task ends), then close the store. A receiver whose pool was closed first gets
//! `Ok(None)` from [`PgInbox::recv`], never a retry loop.

use serde_json::{Value, json};
use sqlx::postgres::PgListener;
use tokio::sync::mpsc;

use crate::error::PgStoreError;
use crate::store::PgStore;
use crate::write::{Edit, Job};

/// The notification channel.
const CHANNEL: &str = "smallebot_events";
/// Bytes of payload per notification, below PostgreSQL's 8000-byte limit.
const MAX_PAYLOAD: usize = 7_500;

/// How long [`PgBroadcast::close`] waits for what is queued to be sent.
const FLUSH_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// The sending end: cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct PgBroadcast {
    queue: mpsc::UnboundedSender<Outgoing>,
}

/// What the sending task is given.
#[derive(Debug)]
enum Outgoing {
    /// A message for the other processes.
    Message(Value),
    /// Send what was queued before, then answer and end.
    Close(tokio::sync::oneshot::Sender<()>),
}

/// The receiving end: messages other processes published.
#[derive(Debug)]
pub struct PgInbox {
    listener: PgListener,
    store: PgStore,
    origin: String,
}

impl PgBroadcast {
    /// Starts listening and the sending task (on the current tokio runtime). The
    /// listener is connected before this returns, so nothing published afterwards by
    /// another process is missed.
    ///
    /// # Errors
    /// [`PgStoreError::Connect`] when the listening connection cannot be opened.
    pub async fn start(store: &PgStore) -> Result<(Self, PgInbox), PgStoreError> {
        let connect_failed = |source| PgStoreError::Connect {
            url: store.url().to_owned(),
            source,
        };
        let mut listener = PgListener::connect_with(store.pool())
            .await
            .map_err(connect_failed)?;
        listener.listen(CHANNEL).await.map_err(connect_failed)?;
        // Unique among the processes on the database (a UUIDv7 carries time and
        // randomness); the pid only helps a person reading the traffic.
        let origin = format!(
            "{}:{}",
            std::process::id(),
            smallebot_core::ids::MessageId::new()
        );
        let (queue, pending) = mpsc::unbounded_channel();
        tokio::spawn(send_all(store.clone(), origin.clone(), pending));
        Ok((
            Self { queue },
            PgInbox {
                listener,
                store: store.clone(),
                origin,
            },
        ))
    }

    /// Queues `message` for every other process (dropped once [`PgBroadcast::close`]
    /// was called, or when the runtime is shutting down).
    pub fn publish(&self, message: Value) {
        let _ = self.queue.send(Outgoing::Message(message));
    }

    /// Sends what is queued (waiting at most a few seconds) and ends the sending task;
    /// later messages are dropped. Call before closing the store.
    pub async fn close(&self) {
        let (done, finished) = tokio::sync::oneshot::channel();
        if self.queue.send(Outgoing::Close(done)).is_ok() {
            // Err: the task is gone already, or the database did not take the rest in
            // time; either way nothing more will be sent.
            let _ = tokio::time::timeout(FLUSH_WITHIN, finished).await;
        }
    }
}

/// Sends queued messages in order until [`PgBroadcast::close`] (or until every handle
/// is dropped).
async fn send_all(store: PgStore, origin: String, mut pending: mpsc::UnboundedReceiver<Outgoing>) {
    let mut closed = None;
    while let Some(first) = pending.recv().await {
        let mut batch = Vec::new();
        let mut next = Some(first);
        while let Some(item) = next.take() {
            match item {
                Outgoing::Message(message) => batch.push(message),
                Outgoing::Close(done) => {
                    closed = Some(done);
                    break;
                }
            }
            next = pending.try_recv().ok();
        }
        for payload in pack(&origin, batch) {
            if let Err(error) = send(&store, &origin, payload).await {
                tracing::warn!(%error, "cannot relay events to the other server processes");
            }
        }
        if let Some(done) = closed.take() {
            let _ = done.send(());
            return;
        }
    }
}

/// Payloads for `messages`, in order: as many per notification as fit; one that fits
/// in none alone is returned as `Err` (to be stored).
fn pack(origin: &str, messages: Vec<Value>) -> Vec<Result<String, Value>> {
    let mut payloads = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut size = 0;
    let overhead = origin.len() + 20;
    for message in messages {
        let text = message.to_string();
        if text.len() + overhead > MAX_PAYLOAD {
            if !current.is_empty() {
                payloads.push(Ok(envelope(origin, &current)));
                current.clear();
                size = 0;
            }
            payloads.push(Err(message));
            continue;
        }
        if size + text.len() + 1 + overhead > MAX_PAYLOAD {
            payloads.push(Ok(envelope(origin, &current)));
            current.clear();
            size = 0;
        }
        size += text.len() + 1;
        current.push(text);
    }
    if !current.is_empty() {
        payloads.push(Ok(envelope(origin, &current)));
    }
    payloads
}

/// `{"o":origin,"m":[…]}` from already serialized messages.
fn envelope(origin: &str, messages: &[String]) -> String {
    format!(
        "{{\"o\":{},\"m\":[{}]}}",
        Value::String(origin.to_owned()),
        messages.join(",")
    )
}

/// Sends one payload: a notification through the store's writer (after the writes this
/// process queued before it), a large message stored first.
async fn send(store: &PgStore, origin: &str, payload: Result<String, Value>) -> Result<(), String> {
    let text = match payload {
        Ok(text) => text,
        Err(large) => {
            let id = store
                .edit("relaying events", |reply| Edit::Relay(large, reply))
                .await
                .map_err(|e| e.to_string())??;
            json!({"o": origin, "r": id}).to_string()
        }
    };
    store
        .writer()
        .submit("relaying events", |reply| Job::Notify {
            channel: CHANNEL,
            payload: text,
            reply,
        })
        .await
        .map_err(|e| e.to_string())
}

impl PgInbox {
    /// The next messages another process published, in its order (a notification may
    /// carry several); `None` once the store's pool is closed (nothing more will
    /// come: stop receiving). Reconnects by itself when the connection drops; `Err`
    /// only when the database cannot be reached at all.
    ///
    /// # Errors
    /// The listener's error when reconnecting fails.
    pub async fn recv(&mut self) -> Result<Option<Vec<Value>>, sqlx::Error> {
        loop {
            if self.store.pool().is_closed() {
                return Ok(None);
            }
            let notification = match self.listener.recv().await {
                Ok(notification) => notification,
                Err(sqlx::Error::PoolClosed) => return Ok(None),
                Err(error) => return Err(error),
            };
            let Ok(payload) = serde_json::from_str::<Value>(notification.payload()) else {
                tracing::warn!("ignored a malformed notification on {CHANNEL}");
                continue;
            };
            if payload.get("o").and_then(Value::as_str) == Some(self.origin.as_str()) {
                continue;
            }
            if let Some(Value::Array(messages)) = payload.get("m") {
                return Ok(Some(messages.clone()));
            }
            if let Some(id) = payload.get("r").and_then(Value::as_i64) {
                let body: Option<Value> =
                    match sqlx::query_scalar("SELECT body FROM relayed_messages WHERE id = $1")
                        .bind(id)
                        .fetch_optional(self.store.pool())
                        .await
                    {
                        Ok(body) => body,
                        Err(sqlx::Error::PoolClosed) => return Ok(None),
                        Err(error) => return Err(error),
                    };
                match body {
                    Some(body) => return Ok(Some(vec![body])),
                    None => tracing::warn!(id, "a relayed message was already swept"),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_packed_in_order_and_large_ones_go_alone_to_the_table() {
        let small = |n: usize| json!({"n": n, "text": "x".repeat(1_000)});
        let large = json!({"text": "y".repeat(MAX_PAYLOAD)});
        let messages = vec![
            small(1),
            small(2),
            large.clone(),
            small(3),
            small(4),
            small(5),
            small(6),
            small(7),
            small(8),
            small(9),
        ];
        let packed = pack("me", messages);
        let mut seen = Vec::new();
        for payload in &packed {
            match payload {
                Ok(text) => {
                    assert!(text.len() <= MAX_PAYLOAD, "{}", text.len());
                    let value: Value = serde_json::from_str(text).unwrap();
                    assert_eq!(value["o"], "me");
                    for m in value["m"].as_array().unwrap() {
                        seen.push(m["n"].as_u64().unwrap());
                    }
                }
                Err(value) => {
                    assert_eq!(value, &large);
                    seen.push(0);
                }
            }
        }
        assert_eq!(seen, [1, 2, 0, 3, 4, 5, 6, 7, 8, 9], "order kept");
        // [1, 2], the large one alone, [3..=9] (seven of ~1 KB fit in one payload).
        assert_eq!(packed.len(), 3, "small ones share notifications");
        let more = pack("me", (0..20).map(small).collect());
        assert_eq!(more.len(), 3, "7 + 7 + 6 per notification");
    }
}
