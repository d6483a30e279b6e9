//! Deltas joined for an event stream that fell behind: when many events wait for a
//! client, the consecutive `TextDelta`s (or `ReasoningDelta`s) of a turn go as one
//! event, with the last one's `seq` (the protocol lets a stream skip a `seq`), so a
//! client that reads slower than a model writes catches up instead of being told to
//! reload.

use smallebot_application::{Event, EventKind, EventSubscription};

/// How many events must wait for a stream before its deltas are joined (a client
/// keeping up receives each delta as it was emitted).
pub(crate) const BEHIND: usize = 32;

/// The most text one joined event carries, in bytes.
const JOINED_MAX: usize = 64 * 1024;

/// `first` with the deltas queued after it joined on, while the stream is behind; the
/// first queued event that cannot join is put in `held`, to be sent next.
pub(crate) fn catch_up(
    mut first: Event,
    subscription: &mut EventSubscription,
    held: &mut Option<Event>,
) -> Event {
    if subscription.queued() < BEHIND {
        return first;
    }
    while delta_len(&first).is_some_and(|len| len < JOINED_MAX) {
        let Some(next) = subscription.try_recv() else {
            break;
        };
        if let Some(next) = join(&mut first, next) {
            *held = Some(next);
            break;
        }
    }
    first
}

/// The length of a delta's text; `None` for another event.
fn delta_len(event: &Event) -> Option<usize> {
    match &event.kind {
        EventKind::TextDelta { text } | EventKind::ReasoningDelta { text } => Some(text.len()),
        _ => None,
    }
}

/// Appends `next` to `into` when both are deltas of the same kind in the same turn of
/// the same conversation (`into` takes `next`'s `seq`); gives `next` back otherwise.
pub(crate) fn join(into: &mut Event, next: Event) -> Option<Event> {
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
mod tests {
    use smallebot_application::events::{Capacity, EventBus, Replay};
    use smallebot_application::{Event, EventKind};
    use smallebot_core::ids::{ConversationId, TurnId};

    use super::{BEHIND, catch_up, join};

    /// A subscription to a new bus that emitted `deltas` one-letter text deltas and then
    /// a `TurnStarted`; the first delta taken from it.
    fn queued(
        deltas: usize,
    ) -> (
        smallebot_application::EventSubscription,
        Event,
        ConversationId,
        Option<TurnId>,
    ) {
        let bus = EventBus::new();
        let (c, t) = (ConversationId::new(), Some(TurnId::new()));
        let mut subscription = bus.subscribe_with(c, Replay::Nothing, Capacity::Bounded(4096));
        for _ in 0..deltas {
            bus.emit(c, t, text("x"));
        }
        bus.emit(c, t, EventKind::TurnStarted);
        let first = subscription.try_recv().unwrap();
        (subscription, first, c, t)
    }

    #[test]
    fn a_stream_behind_gets_its_waiting_deltas_as_one_and_the_next_event_after() {
        let deltas = BEHIND * 3;
        let (mut subscription, first, c, t) = queued(deltas);
        let mut held = None;
        let joined = catch_up(first, &mut subscription, &mut held);
        let all = "x".repeat(deltas);
        assert_eq!(joined, Event::new(c, t, deltas as u64, text(&all)));
        assert_eq!(
            held,
            Some(Event::new(c, t, deltas as u64 + 1, EventKind::TurnStarted))
        );
        assert!(subscription.try_recv().is_none());
    }

    #[test]
    fn a_stream_keeping_up_gets_each_delta_as_it_came() {
        let (mut subscription, first, c, t) = queued(3);
        let mut held = None;
        let one = catch_up(first, &mut subscription, &mut held);
        assert_eq!(one, Event::new(c, t, 1, text("x")));
        assert_eq!(held, None);
        assert_eq!(subscription.queued(), 3);
    }

    fn text(t: &str) -> EventKind {
        EventKind::TextDelta { text: t.into() }
    }

    fn reasoning(t: &str) -> EventKind {
        EventKind::ReasoningDelta { text: t.into() }
    }

    #[test]
    fn only_deltas_of_one_kind_in_one_turn_join() {
        let c = ConversationId::new();
        let (t, other_turn) = (Some(TurnId::new()), Some(TurnId::new()));
        let other_conversation = ConversationId::new();
        // (first, next, joined into)
        let cases = [
            (text("ab"), c, t, text("cd"), Some(text("abcd"))),
            (
                reasoning("ab"),
                c,
                t,
                reasoning("cd"),
                Some(reasoning("abcd")),
            ),
            (text("ab"), c, t, reasoning("cd"), None),
            (reasoning("ab"), c, t, text("cd"), None),
            (text("ab"), c, other_turn, text("cd"), None),
            (text("ab"), other_conversation, t, text("cd"), None),
            (text("ab"), c, t, EventKind::TurnStarted, None),
            (EventKind::TurnStarted, c, t, text("cd"), None),
        ];
        for (first, next_conversation, next_turn, next, joined) in cases {
            let mut into = Event::new(c, t, 1, first.clone());
            let next = Event::new(next_conversation, next_turn, 2, next);
            let outcome = join(&mut into, next.clone());
            match joined {
                Some(kind) => {
                    assert_eq!(outcome, None, "{first:?} + {next:?}");
                    assert_eq!(into, Event::new(c, t, 2, kind));
                }
                None => {
                    assert_eq!(outcome, Some(next), "{first:?}");
                    assert_eq!(into, Event::new(c, t, 1, first));
                }
            }
        }
    }
}
