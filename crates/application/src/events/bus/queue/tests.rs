//! The joining queue: deltas join only while they wait, limits, ends.
use smallebot_core::ids::{ConversationId, TurnId};

use super::*;

fn text(t: &str) -> EventKind {
    EventKind::TextDelta { text: t.into() }
}

fn reasoning(t: &str) -> EventKind {
    EventKind::ReasoningDelta { text: t.into() }
}

fn limits(events: usize, bytes: usize) -> QueueLimits {
    QueueLimits { events, bytes }
}

#[test]
fn deltas_waiting_together_are_joined_and_take_the_last_seq() {
    let (c, t) = (ConversationId::new(), Some(TurnId::new()));
    let (sender, mut receiver) = queue(limits(16, 1024));
    for seq in 1..=5 {
        sender.push(Event::new(c, t, seq, text("ab"))).unwrap();
    }
    sender
        .push(Event::new(c, t, 6, EventKind::TurnCancelled))
        .unwrap();
    sender.push(Event::new(c, t, 7, text("cd"))).unwrap();
    assert_eq!(receiver.len(), 3);
    let got: Vec<Event> = std::iter::from_fn(|| receiver.try_recv()).collect();
    assert_eq!(
        got,
        [
            Event::new(c, t, 5, text("ababababab")),
            Event::new(c, t, 6, EventKind::TurnCancelled),
            Event::new(c, t, 7, text("cd")),
        ]
    );
}

#[test]
fn a_reader_keeping_up_gets_each_delta_as_it_came() {
    let (c, t) = (ConversationId::new(), Some(TurnId::new()));
    let (sender, mut receiver) = queue(limits(16, 1024));
    for seq in 1..=3 {
        sender.push(Event::new(c, t, seq, text("x"))).unwrap();
        assert_eq!(receiver.try_recv(), Some(Event::new(c, t, seq, text("x"))));
    }
}

#[test]
fn a_joined_delta_stops_growing_at_its_most_bytes() {
    let (c, t) = (ConversationId::new(), Some(TurnId::new()));
    let (sender, mut receiver) = queue(limits(16, 4 * JOINED_MAX));
    let half = "y".repeat(JOINED_MAX / 2);
    for seq in 1..=3 {
        sender.push(Event::new(c, t, seq, text(&half))).unwrap();
    }
    let first = receiver.try_recv().unwrap();
    assert_eq!((first.seq, first.kind), (2, text(&half.repeat(2))));
    assert_eq!(receiver.try_recv(), Some(Event::new(c, t, 3, text(&half))));
}

#[test]
fn too_many_events_or_bytes_waiting_is_full_and_a_read_makes_room() {
    let c = ConversationId::new();
    let (sender, mut receiver) = queue(limits(2, 8));
    let started = |seq| Event::new(c, None, seq, EventKind::TurnStarted);
    sender.push(started(1)).unwrap();
    sender.push(started(2)).unwrap();
    assert_eq!(sender.push(started(3)), Err(Refused::Full));
    receiver.try_recv().unwrap();
    // One event's room left, and eight bytes of text.
    sender.push(Event::new(c, None, 3, text("12345"))).unwrap();
    assert_eq!(
        sender.push(Event::new(c, None, 4, text("6789"))),
        Err(Refused::Full),
        "nine bytes of text"
    );
    sender.push(Event::new(c, None, 4, text("678"))).unwrap();
    receiver.try_recv().unwrap();
    assert_eq!(
        receiver.try_recv(),
        Some(Event::new(c, None, 4, text("12345678")))
    );
    // Taken text frees its bytes; an empty queue takes a delta longer than the limit.
    sender
        .push(Event::new(c, None, 5, text("abcdefgh")))
        .unwrap();
    receiver.try_recv().unwrap();
    sender
        .push(Event::new(c, None, 6, text("a longer delta")))
        .unwrap();
}

#[tokio::test]
async fn the_reader_gets_what_waits_then_the_end_once_the_sender_is_gone() {
    let c = ConversationId::new();
    let (sender, mut receiver) = queue(limits(4, 64));
    sender.push(Event::new(c, None, 1, text("a"))).unwrap();
    drop(sender);
    assert_eq!(
        receiver.recv().await,
        Some(Event::new(c, None, 1, text("a")))
    );
    assert_eq!(receiver.recv().await, None);
}

#[tokio::test]
async fn a_waiting_reader_wakes_for_a_push() {
    let c = ConversationId::new();
    let (sender, mut receiver) = queue(limits(4, 64));
    let waiting = tokio::spawn(async move { receiver.recv().await });
    tokio::task::yield_now().await;
    sender.push(Event::new(c, None, 1, text("a"))).unwrap();
    assert_eq!(
        waiting.await.unwrap(),
        Some(Event::new(c, None, 1, text("a")))
    );
}

#[test]
fn nothing_is_queued_for_a_reader_that_is_gone() {
    let c = ConversationId::new();
    let (sender, receiver) = queue(limits(4, 64));
    drop(receiver);
    assert_eq!(
        sender.push(Event::new(c, None, 1, text("a"))),
        Err(Refused::Closed)
    );
}

#[test]
fn only_deltas_of_one_kind_in_one_turn_join() {
    let c = ConversationId::new();
    let (t, other_turn) = (Some(TurnId::new()), Some(TurnId::new()));
    let other_conversation = ConversationId::new();
    // (first, next's conversation, next's turn, next, joined into)
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

/// Counts its wakes.
#[derive(Default)]
struct Wakes(std::sync::atomic::AtomicUsize);

impl futures::task::ArcWake for Wakes {
    fn wake_by_ref(arc_self: &Arc<Self>) {
        arc_self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn a_pending_poll_keeps_only_the_waker_which_a_push_and_the_senders_end_wake() {
    let c = ConversationId::new();
    let wakes = Arc::new(Wakes::default());
    let waker = futures::task::waker(Arc::clone(&wakes));
    let mut cx = Context::from_waker(&waker);
    let (sender, mut receiver) = queue(limits(4, 64));
    assert!(receiver.poll_recv(&mut cx).is_pending());
    // Polled again while waiting: still one waker, no wake.
    assert!(receiver.poll_recv(&mut cx).is_pending());
    assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), 0);
    sender.push(Event::new(c, None, 1, text("a"))).unwrap();
    assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert!(matches!(receiver.poll_recv(&mut cx), Poll::Ready(Some(_))));
    assert!(receiver.poll_recv(&mut cx).is_pending());
    drop(sender);
    assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), 2);
    assert!(matches!(receiver.poll_recv(&mut cx), Poll::Ready(None)));
}
