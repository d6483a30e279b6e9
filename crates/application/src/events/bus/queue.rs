//! A bounded subscriber queue that joins consecutive deltas: a delta pushed while the
//! one before it is still waiting is appended to it (the joined event takes the later
//! `seq`; the protocol lets a stream skip a `seq`). A reader slower than the model
//! therefore receives fewer, longer deltas instead of falling behind by thousands of
//! events; only a reader that stops reading for long fills the queue and is dropped.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use crate::events::{Event, EventKind};

/// The most text one joined delta carries, in bytes (a longer run of deltas becomes
/// several events).
pub const JOINED_MAX: usize = 64 * 1024;

/// How a bounded queue is limited: a subscriber that would pass either limit is
/// dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueLimits {
    /// The most events waiting (joined deltas count once).
    pub events: usize,
    /// The most bytes of delta text waiting (an empty queue takes a longer delta).
    pub bytes: usize,
}

#[derive(Debug, Default)]
struct State {
    events: VecDeque<Event>,
    /// Bytes of delta text in `events`.
    bytes: usize,
    /// The sending end is gone: after the waiting events, the end.
    sender_gone: bool,
    /// The receiving end is gone: deliver nothing more.
    receiver_gone: bool,
    /// The receiver waiting for an event (no waiter list: one receiver, one waker).
    waiting: Option<Waker>,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    limits: QueueLimits,
}

impl Shared {
    /// The state; a poisoned lock (a panic while it was held) is taken as it is: each
    /// change leaves it whole.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A new queue with `limits`: its sending and receiving ends.
pub(super) fn queue(limits: QueueLimits) -> (QueueSender, QueueReceiver) {
    let limits = QueueLimits {
        events: limits.events.max(1),
        bytes: limits.bytes.max(1),
    };
    let shared = Arc::new(Shared {
        state: Mutex::default(),
        limits,
    });
    (QueueSender(Arc::clone(&shared)), QueueReceiver(shared))
}

/// Why a push was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refused {
    /// The receiver is gone.
    Closed,
    /// The queue is full: the receiver fell too far behind.
    Full,
}

/// The bus's end of a queue.
#[derive(Debug)]
pub(super) struct QueueSender(Arc<Shared>);

impl QueueSender {
    /// Queues `event`, joined onto the waiting delta before it when it can be.
    pub(super) fn push(&self, event: Event) -> Result<(), Refused> {
        let limits = self.0.limits;
        let mut state = self.0.lock();
        if state.receiver_gone {
            return Err(Refused::Closed);
        }
        let added = event.delta_text().map_or(0, str::len);
        // The limit is on text waiting behind other events: an empty queue takes any.
        if !state.events.is_empty() && state.bytes + added > limits.bytes {
            return Err(Refused::Full);
        }
        let event = match state.events.back_mut() {
            Some(last)
                if last
                    .delta_text()
                    .is_some_and(|t| t.len() + added <= JOINED_MAX) =>
            {
                match join(last, event) {
                    None => {
                        state.bytes += added;
                        wake(state);
                        return Ok(());
                    }
                    Some(event) => event,
                }
            }
            _ => event,
        };
        if state.events.len() >= limits.events {
            return Err(Refused::Full);
        }
        state.events.push_back(event);
        state.bytes += added;
        wake(state);
        Ok(())
    }
}

impl Drop for QueueSender {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.sender_gone = true;
        wake(state);
    }
}

/// The subscriber's end of a queue.
#[derive(Debug)]
pub(super) struct QueueReceiver(Arc<Shared>);

impl QueueReceiver {
    /// The next event; `None` once the sender is gone and nothing waits.
    pub(super) async fn recv(&mut self) -> Option<Event> {
        std::future::poll_fn(|cx| self.poll_recv(cx)).await
    }

    /// The next event, or `None` once the sender is gone and nothing waits; pending
    /// (`cx` woken by the next push or the sender's end) while the queue is empty.
    /// Nothing is held between polls but the waker.
    pub(super) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Event>> {
        let mut state = self.0.lock();
        if let Some(event) = take(&mut state) {
            return Poll::Ready(Some(event));
        }
        if state.sender_gone {
            return Poll::Ready(None);
        }
        match &mut state.waiting {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            waiting => *waiting = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// The next event if one waits.
    pub(super) fn try_recv(&mut self) -> Option<Event> {
        take(&mut self.0.lock())
    }

    /// How many events wait.
    pub(super) fn len(&self) -> usize {
        self.0.lock().events.len()
    }
}

impl Drop for QueueReceiver {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.receiver_gone = true;
        state.events.clear();
        state.waiting = None;
    }
}

/// Releases `state` and wakes the receiver waiting on it, if any.
fn wake(mut state: MutexGuard<'_, State>) {
    let waiting = state.waiting.take();
    drop(state);
    if let Some(waker) = waiting {
        waker.wake();
    }
}

fn take(state: &mut State) -> Option<Event> {
    let event = state.events.pop_front()?;
    state.bytes -= event.delta_text().map_or(0, str::len);
    Some(event)
}

/// Appends `next` to `into` when both are deltas of the same kind in the same turn of
/// the same conversation (`into` takes `next`'s `seq`); gives `next` back otherwise.
pub(super) fn join(into: &mut Event, next: Event) -> Option<Event> {
    let same_place = into.conversation_id == next.conversation_id && into.turn_id == next.turn_id;
    let seq = next.seq;
    match (&mut into.kind, next.kind) {
        (EventKind::TextDelta { text }, EventKind::TextDelta { text: more })
        | (EventKind::ReasoningDelta { text }, EventKind::ReasoningDelta { text: more })
            if same_place =>
        {
            text.push_str(&more);
            into.seq = seq;
            None
        }
        (_, kind) => Some(Event::new(next.conversation_id, next.turn_id, seq, kind)),
    }
}

#[cfg(test)]
mod tests;
