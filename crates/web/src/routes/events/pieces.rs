//! One event stream as a hand-written state machine ([`OwnBody`]): its subscription,
//! the confirmer's questions, the pace of deltas and the shared keep-alive tick, each
//! polled in turn; an idle stream holds only this state (no timer, no futures).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::body::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use smallebot_application::ports::MetricsExport;
use smallebot_application::{EventKind, EventSubscription};
use tokio::time::{Instant, Sleep};

use super::{reload, sse};
use crate::keep_alive::{Seen, Ticks};
use crate::serve::OwnBody;

/// The keep-alive: an SSE comment.
const KEEP_ALIVE: &[u8] = b":\n\n";

/// One stream's state.
pub(crate) struct EventPieces {
    /// Sending events; `None` once ended.
    live: Option<Live>,
    /// A last event to send before the end (a `reload`).
    last: Option<Bytes>,
    ticks: Arc<Ticks>,
    seen: Seen,
    /// Counted as a subscriber while the stream lives (dropped when the client goes).
    _counted: Option<Subscriber>,
}

/// A stream sending events.
struct Live {
    subscription: EventSubscription,
    /// The questions for this conversation as SSE (the confirmer's and the elicitor's;
    /// boxed: a watch has no poll of its own).
    questions: Option<BoxStream<'static, Bytes>>,
    /// The timer of the delta pace: kept while deltas flow, dropped by any other event.
    pace: Option<Pin<Box<Sleep>>>,
    /// Whether the next event waits for `pace`.
    pacing: bool,
}

impl EventPieces {
    /// A stream of `subscription`'s events (and of `questions`), with a keep-alive at
    /// each of `ticks`.
    pub(crate) fn live(
        subscription: EventSubscription,
        questions: Option<BoxStream<'static, Bytes>>,
        ticks: Arc<Ticks>,
        metrics: Option<Arc<dyn MetricsExport>>,
    ) -> Self {
        Self {
            live: Some(Live {
                subscription,
                questions,
                pace: None,
                pacing: false,
            }),
            last: None,
            seen: ticks.seen(),
            ticks,
            _counted: metrics.map(Subscriber::new),
        }
    }

    /// A stream of one event, then the end.
    pub(crate) fn only(
        event: Bytes,
        ticks: Arc<Ticks>,
        metrics: Option<Arc<dyn MetricsExport>>,
    ) -> Self {
        Self {
            live: None,
            last: Some(event),
            seen: ticks.seen(),
            ticks,
            _counted: metrics.map(Subscriber::new),
        }
    }
}

impl OwnBody for EventPieces {
    fn poll_piece(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>> {
        let Some(live) = self.live.as_mut() else {
            return Poll::Ready(self.last.take());
        };
        match live.poll_event(cx, &mut self.last) {
            Poll::Ready(Some(piece)) => return Poll::Ready(Some(piece)),
            Poll::Ready(None) => {
                self.live = None;
                return Poll::Ready(self.last.take());
            }
            Poll::Pending => {}
        }
        ready!(self.ticks.poll_tick(&mut self.seen, cx));
        Poll::Ready(Some(Bytes::from_static(KEEP_ALIVE)))
    }
}

impl Live {
    /// The next event or question as SSE; `None` at the end (with `last` to send first
    /// when the stream fell behind).
    fn poll_event(
        &mut self,
        cx: &mut Context<'_>,
        last: &mut Option<Bytes>,
    ) -> Poll<Option<Bytes>> {
        // Right after a delta, the next event waits out the pace (deltas join meanwhile).
        if self.pacing {
            if let Some(pace) = self.pace.as_mut() {
                ready!(pace.as_mut().poll(cx));
            }
            self.pacing = false;
        }
        match self.subscription.poll_recv(cx) {
            Poll::Ready(Some(event)) => {
                let delta = matches!(
                    event.kind,
                    EventKind::TextDelta { .. } | EventKind::ReasoningDelta { .. }
                );
                let sent = sse(event);
                // Once what waited is sent, the next delta waits out the pace.
                if delta && self.subscription.queued() == 0 {
                    self.pace_from_now(super::DELTA_PACE);
                } else if !delta {
                    self.pace = None;
                }
                return Poll::Ready(Some(sent));
            }
            Poll::Ready(None) => {
                if self.subscription.lagged() {
                    *last = Some(reload("this stream fell too far behind the conversation"));
                }
                return Poll::Ready(None);
            }
            Poll::Pending => {}
        }
        if let Some(questions) = self.questions.as_mut() {
            match questions.poll_next_unpin(cx) {
                Poll::Ready(Some(question)) => return Poll::Ready(Some(question)),
                // No questions any more: only events.
                Poll::Ready(None) => self.questions = None,
                Poll::Pending => {}
            }
        }
        Poll::Pending
    }

    /// Makes the next event wait until `pace` from now (the timer reused).
    fn pace_from_now(&mut self, pace: Duration) {
        let until = Instant::now() + pace;
        match self.pace.as_mut() {
            Some(sleep) => sleep.as_mut().reset(until),
            None => self.pace = Some(Box::pin(tokio::time::sleep_until(until))),
        }
        self.pacing = true;
    }
}

/// One event-stream subscriber in the metrics, from its start to its drop.
struct Subscriber(Arc<dyn MetricsExport>);

impl Subscriber {
    fn new(metrics: Arc<dyn MetricsExport>) -> Self {
        metrics.sse_subscribers(true);
        Self(metrics)
    }
}

impl Drop for Subscriber {
    fn drop(&mut self) {
        self.0.sse_subscribers(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallebot_application::events::EventBus;
    use smallebot_core::ids::ConversationId;

    async fn next(pieces: &mut EventPieces) -> Option<Bytes> {
        std::future::poll_fn(|cx| pieces.poll_piece(cx)).await
    }

    #[tokio::test]
    async fn an_idle_stream_sends_a_keep_alive_at_each_shared_tick_and_events_as_they_come() {
        let bus = EventBus::new();
        let c = ConversationId::new();
        let ticks = Ticks::new(Duration::from_millis(20));
        let mut pieces = EventPieces::live(bus.subscribe(c), None, Arc::clone(&ticks), None);
        assert_eq!(
            next(&mut pieces).await,
            Some(Bytes::from_static(KEEP_ALIVE))
        );
        assert_eq!(
            next(&mut pieces).await,
            Some(Bytes::from_static(KEEP_ALIVE))
        );
        bus.emit(c, None, EventKind::TurnCancelled);
        let event = next(&mut pieces).await.unwrap_or_default();
        assert!(event.starts_with(b"id: 1\ndata: {"), "{event:?}");
    }

    #[tokio::test]
    async fn a_stream_of_one_event_ends_after_it() {
        let ticks = Ticks::new(Duration::from_secs(3600));
        let mut pieces = EventPieces::only(Bytes::from_static(b"x"), ticks, None);
        assert_eq!(next(&mut pieces).await, Some(Bytes::from_static(b"x")));
        assert_eq!(next(&mut pieces).await, None);
    }
}
