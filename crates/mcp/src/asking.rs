//! Whom a server's questions go to: the calls running on one server (each with its
//! conversation, its turn's cancellation and its elicitations), who answers their
//! requests ([`Answerers`]: the front end that asks the person, the model that answers
//! sampling; shared by every server), and the clock that stops a call's timeout while
//! the person is being asked.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use smallebot_application::ports::{
    CallElicitations, CallRequester, ChatModel, Elicitor, NoOneToAsk, ToolContext,
};
use smallebot_core::ids::{ConversationId, TurnId};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// Who answers a server's requests, shared by every server of one set: the front end
/// that asks the person (default: nobody, every question declined) and the model that
/// answers sampling (default: none, refused).
pub(crate) struct Answerers {
    elicitor: Mutex<Arc<dyn Elicitor>>,
    sampler: Mutex<Option<Arc<dyn ChatModel>>>,
}

impl Default for Answerers {
    fn default() -> Self {
        Self {
            elicitor: Mutex::new(Arc::new(NoOneToAsk)),
            sampler: Mutex::new(None),
        }
    }
}

impl Answerers {
    /// Who asks from now on.
    pub(crate) fn set_elicitor(&self, elicitor: Arc<dyn Elicitor>) {
        *self.elicitor.lock().unwrap_or_else(PoisonError::into_inner) = elicitor;
    }

    /// Who asks now.
    pub(crate) fn elicitor(&self) -> Arc<dyn Elicitor> {
        Arc::clone(&self.elicitor.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The model that answers sampling requests from now on.
    pub(crate) fn set_sampler(&self, model: Arc<dyn ChatModel>) {
        *self.sampler.lock().unwrap_or_else(PoisonError::into_inner) = Some(model);
    }

    /// The model that answers sampling requests, if any.
    pub(crate) fn sampler(&self) -> Option<Arc<dyn ChatModel>> {
        self.sampler
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// How long a call has spent waiting for the person: its tool timeout does not run
/// meanwhile.
#[derive(Default)]
pub(crate) struct AskClock(Mutex<(Duration, Option<Instant>)>);

impl AskClock {
    /// The time spent asking so far (a question still open counts until now).
    pub(crate) fn asked(&self) -> Duration {
        let (done, open) = *self.0.lock().unwrap_or_else(PoisonError::into_inner);
        done + open.map_or(Duration::ZERO, |since| since.elapsed())
    }

    /// Whether a question is open now.
    pub(crate) fn asking(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .1
            .is_some()
    }

    /// Starts counting; the count stops when the guard is dropped.
    pub(crate) fn pause(self: &Arc<Self>) -> PauseGuard {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).1 = Some(Instant::now());
        PauseGuard(Arc::clone(self))
    }
}

/// Stops an [`AskClock`]'s count when dropped.
pub(crate) struct PauseGuard(Arc<AskClock>);

impl Drop for PauseGuard {
    fn drop(&mut self) {
        let mut clock = self.0.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(since) = clock.1.take() {
            clock.0 += since.elapsed();
        }
    }
}

/// A call running on a server, as its questions need it.
#[derive(Clone)]
pub(crate) struct ActiveCall {
    id: u64,
    /// Its conversation.
    pub(crate) conversation_id: Option<ConversationId>,
    /// Its turn.
    pub(crate) turn_id: Option<TurnId>,
    /// The model's id of the call.
    pub(crate) call_id: Option<String>,
    /// Where its elicitations are reported.
    pub(crate) elicitations: CallElicitations,
    /// The turn its model requests are billed to.
    pub(crate) billed_to: Option<smallebot_core::entities::BilledTurn>,
    /// Whose turn it is and the conversation's model.
    pub(crate) requester: Option<CallRequester>,
    /// Cancelled with its turn.
    pub(crate) cancel: CancellationToken,
    /// Its time spent asking.
    pub(crate) clock: Arc<AskClock>,
}

/// The calls running on one server.
#[derive(Default)]
pub(crate) struct Asking {
    calls: Mutex<Vec<ActiveCall>>,
    next: AtomicU64,
}

impl Asking {
    /// Notes a call made in `context` until the guard is dropped.
    pub(crate) fn enter(self: &Arc<Self>, context: &ToolContext) -> CallGuard {
        let call = ActiveCall {
            id: self.next.fetch_add(1, Ordering::SeqCst),
            conversation_id: context.conversation_id,
            turn_id: context.turn_id,
            call_id: context.call_id.clone(),
            elicitations: context.elicitations.clone(),
            billed_to: context.billed_to,
            requester: context.requester.clone(),
            cancel: context.cancel.clone(),
            clock: Arc::default(),
        };
        self.lock().push(call.clone());
        CallGuard {
            asking: Arc::clone(self),
            call,
        }
    }

    /// The call a question of the server is about: the latest one running, when every
    /// running call is of the same conversation; `None` when none runs, or when calls
    /// of several conversations run (a server's request does not say which call it
    /// belongs to, and one person's form must not reach another).
    pub(crate) fn call_to_ask(&self) -> Option<ActiveCall> {
        let calls = self.lock();
        let last = calls.last()?;
        calls
            .iter()
            .all(|c| c.conversation_id == last.conversation_id)
            .then(|| last.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ActiveCall>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A running call; dropping it forgets the call.
pub(crate) struct CallGuard {
    asking: Arc<Asking>,
    /// The call.
    pub(crate) call: ActiveCall,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        let id = self.call.id;
        self.asking.lock().retain(|c| c.id != id);
    }
}

/// Runs `future` within `timeout`, not counting the time `clock` spends asking the
/// person; `None` when the time ran out.
pub(crate) async fn within<F: std::future::Future>(
    timeout: Duration,
    clock: &AskClock,
    future: F,
) -> Option<F::Output> {
    let start = Instant::now();
    let mut future = std::pin::pin!(future);
    loop {
        let deadline = start + timeout + clock.asked();
        tokio::select! {
            output = &mut future => return Some(output),
            () = tokio::time::sleep_until(deadline) => {
                if clock.asking() {
                    // Not before a moment: the deadline moves while the person reads.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                } else if start + timeout + clock.asked() <= Instant::now() {
                    return None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(conversation: Option<ConversationId>) -> ToolContext {
        let mut context = ToolContext::outside_conversation();
        context.conversation_id = conversation;
        context
    }

    #[test]
    fn a_question_goes_to_the_latest_call_only_when_all_are_of_one_conversation() {
        let asking = Arc::new(Asking::default());
        assert!(asking.call_to_ask().is_none());
        let (a, b) = (ConversationId::new(), ConversationId::new());
        let first = asking.enter(&context(Some(a)));
        let second = asking.enter(&context(Some(a)));
        assert_eq!(asking.call_to_ask().map(|c| c.id), Some(second.call.id));
        let other = asking.enter(&context(Some(b)));
        assert!(
            asking.call_to_ask().is_none(),
            "two conversations: no one to ask"
        );
        drop(other);
        drop(second);
        assert_eq!(asking.call_to_ask().map(|c| c.id), Some(first.call.id));
    }

    #[tokio::test]
    async fn the_timeout_stops_while_the_person_is_asked() {
        let ms = Duration::from_millis;
        let clock = Arc::new(AskClock::default());
        let asked = Arc::clone(&clock);
        let work = async move {
            let pause = asked.pause();
            tokio::time::sleep(ms(600)).await;
            drop(pause);
            tokio::time::sleep(ms(100)).await;
            "done"
        };
        assert_eq!(within(ms(300), &clock, work).await, Some("done"));
        let slow = tokio::time::sleep(ms(600));
        assert_eq!(within(ms(300), &AskClock::default(), slow).await, None);
    }
}
