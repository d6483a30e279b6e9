//! [`Questions`]: one question at a time per conversation, shown to the conversation's
//! event streams (also to a page opened later) and answered by its id — the slots of
//! [`WebConfirmer`](crate::WebConfirmer) and [`WebElicitor`](crate::WebElicitor).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use smallebot_core::ids::ConversationId;
use tokio::sync::{oneshot, watch};

/// One conversation's slot: what its page shows, the answer's way back, and the line
/// of askers who wait their turn ([`Questions::line`]).
struct Slot<S, A> {
    shown: watch::Sender<Option<S>>,
    shown_id: Option<u64>,
    waiting: Option<(u64, oneshot::Sender<A>)>,
    line: Arc<tokio::sync::Mutex<()>>,
}

impl<S, A> Slot<S, A> {
    fn empty() -> Self {
        Self {
            shown: watch::channel(None).0,
            shown_id: None,
            waiting: None,
            line: Arc::default(),
        }
    }
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal<E> {
    /// No such question waits (answered, timed out, or never asked).
    NothingPending,
    /// The answer does not fit the question, which stays pending.
    Unfit(E),
}

/// The questions of every conversation: `S` is what a page shows, `A` the answer.
pub(crate) struct Questions<S, A> {
    slots: Mutex<HashMap<ConversationId, Slot<S, A>>>,
    next_id: AtomicU64,
}

impl<S, A> Default for Questions<S, A> {
    fn default() -> Self {
        Self {
            slots: Mutex::default(),
            next_id: AtomicU64::new(0),
        }
    }
}

impl<S: Clone, A> Questions<S, A> {
    /// Follows the conversation's question (`None` when none waits).
    pub(crate) fn watch(&self, conversation_id: ConversationId) -> watch::Receiver<Option<S>> {
        match self.slots.lock() {
            Ok(mut slots) => slots
                .entry(conversation_id)
                .or_insert_with(Slot::empty)
                .shown
                .subscribe(),
            Err(_) => watch::channel(None).1,
        }
    }

    /// The conversation's line: an asker that holds its lock while asking makes the
    /// next one wait until the question before is closed (instead of replacing it).
    pub(crate) fn line(
        &self,
        conversation_id: ConversationId,
    ) -> Option<Arc<tokio::sync::Mutex<()>>> {
        let mut slots = self.slots.lock().ok()?;
        let slot = slots.entry(conversation_id).or_insert_with(Slot::empty);
        Some(Arc::clone(&slot.line))
    }

    /// Shows the question `shown(id)` (replacing any other) and returns its id and the
    /// answer's receiving end.
    pub(crate) fn ask(
        &self,
        conversation_id: ConversationId,
        shown: impl FnOnce(u64) -> S,
    ) -> Option<(u64, oneshot::Receiver<A>)> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (reply, answer) = oneshot::channel();
        let mut slots = self.slots.lock().ok()?;
        let slot = slots.entry(conversation_id).or_insert_with(Slot::empty);
        slot.waiting = Some((id, reply));
        slot.shown_id = Some(id);
        slot.shown.send_replace(Some(shown(id)));
        Some((id, answer))
    }

    /// Answers the question `request_id` of the conversation with what `decide` makes
    /// of it; when `decide` refuses, the question stays pending.
    ///
    /// # Errors
    /// [`Refusal::NothingPending`] when no such question waits, [`Refusal::Unfit`]
    /// with `decide`'s reason.
    pub(crate) fn answer<E>(
        &self,
        conversation_id: ConversationId,
        request_id: u64,
        decide: impl FnOnce(&S) -> Result<A, E>,
    ) -> Result<(), Refusal<E>> {
        let mut slots = self.slots.lock().map_err(|_| Refusal::NothingPending)?;
        let slot = slots
            .get_mut(&conversation_id)
            .ok_or(Refusal::NothingPending)?;
        if !matches!(&slot.waiting, Some((id, _)) if *id == request_id) {
            return Err(Refusal::NothingPending);
        }
        let answer = {
            let shown = slot.shown.borrow();
            let question = shown.as_ref().ok_or(Refusal::NothingPending)?;
            decide(question).map_err(Refusal::Unfit)?
        };
        let (_, reply) = slot.waiting.take().ok_or(Refusal::NothingPending)?;
        slot.shown_id = None;
        slot.shown.send_replace(None);
        reply.send(answer).map_err(|_| Refusal::NothingPending)
    }

    /// Takes the question `id` down (answered, timed out or abandoned).
    pub(crate) fn withdraw(&self, conversation_id: ConversationId, id: u64) {
        if let Ok(mut slots) = self.slots.lock()
            && let Some(slot) = slots.get_mut(&conversation_id)
        {
            if matches!(&slot.waiting, Some((pending, _)) if *pending == id) {
                slot.waiting = None;
            }
            if slot.shown_id == Some(id) {
                slot.shown_id = None;
                slot.shown.send_replace(None);
            }
        }
    }
}

/// Withdraws a question when its asker stops waiting, however it stops.
pub(crate) struct Withdraw<'a, S: Clone, A> {
    pub(crate) questions: &'a Questions<S, A>,
    pub(crate) conversation_id: ConversationId,
    pub(crate) id: u64,
}

impl<S: Clone, A> Drop for Withdraw<'_, S, A> {
    fn drop(&mut self) {
        self.questions.withdraw(self.conversation_id, self.id);
    }
}
