//! The bus: delivery, replay, bounds.
use super::*;

fn text(event: &Event) -> &str {
    match &event.kind {
        EventKind::TextDelta { text } => text,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn every_subscriber_of_a_conversation_gets_its_events_in_order() {
    let bus = EventBus::new();
    let conversation = ConversationId::new();
    let turn = Some(TurnId::new());
    let mut a = bus.subscribe(conversation);
    let mut b = bus.subscribe(conversation);
    for t in ["a", "b"] {
        bus.emit(conversation, turn, EventKind::TextDelta { text: t.into() });
    }
    for sub in [&mut a, &mut b] {
        for (seq, expected) in [(1, "a"), (2, "b")] {
            let event = sub.recv().await.unwrap();
            assert_eq!((event.seq, text(&event)), (seq, expected));
            assert_eq!(event.conversation_id, conversation);
            assert_eq!(event.turn_id, turn);
        }
    }
    drop(a);
    bus.emit(conversation, turn, EventKind::TurnStarted);
    let event = b.recv().await.unwrap();
    assert_eq!((event.seq, event.kind), (3, EventKind::TurnStarted));
}

#[test]
fn other_conversations_are_not_delivered_and_count_on_their_own() {
    let bus = EventBus::new();
    let (mine, theirs) = (ConversationId::new(), ConversationId::new());
    let mut sub = bus.subscribe(mine);
    assert_eq!(bus.emit(theirs, None, EventKind::TurnStarted), 1);
    assert_eq!(bus.emit(theirs, None, EventKind::TurnStarted), 2);
    assert!(sub.try_recv().is_none());
    assert_eq!(bus.emit(mine, None, EventKind::TurnStarted), 1);
    assert_eq!(sub.try_recv().map(|e| e.seq), Some(1));
}

#[test]
fn the_count_goes_on_when_nobody_listens() {
    let bus = EventBus::new();
    let conversation = ConversationId::new();
    bus.emit(conversation, None, EventKind::TurnStarted);
    let mut late = bus.subscribe(conversation);
    bus.emit(conversation, None, EventKind::TurnCancelled);
    assert_eq!(late.try_recv().map(|e| e.seq), Some(2));
}

/// Room for `events` events (and plenty of text).
fn room(events: usize) -> QueueLimits {
    QueueLimits {
        events,
        bytes: 1 << 20,
    }
}

fn seqs(sub: &mut EventSubscription) -> Vec<u64> {
    std::iter::from_fn(|| sub.try_recv().map(|e| e.seq)).collect()
}

#[test]
fn a_subscriber_joining_mid_turn_gets_the_running_turn_replayed() {
    let bus = EventBus::new();
    let c = ConversationId::new();
    let turn = Some(TurnId::new());
    bus.emit(c, None, EventKind::TitleChanged { title: "t".into() }); // 1
    bus.emit(c, turn, EventKind::TurnStarted); // 2
    bus.emit(c, turn, EventKind::TextDelta { text: "Hel".into() }); // 3
    let mut mid = bus.subscribe_with(c, Replay::RunningTurn, Capacity::Unbounded);
    bus.emit(c, turn, EventKind::TextDelta { text: "lo".into() }); // 4
    assert_eq!(seqs(&mut mid), [2, 3, 4]);
    assert!(!mid.missed_events());
    bus.emit(
        c,
        turn,
        EventKind::TurnCompleted {
            text: "Hello".into(),
            cut: None,
        },
    ); // 5
    // Once the turn ended there is nothing running to replay.
    let mut after = bus.subscribe_with(c, Replay::RunningTurn, Capacity::Unbounded);
    assert_eq!(seqs(&mut after), Vec::<u64>::new());
}

#[test]
fn a_reconnecting_subscriber_gets_what_it_missed_or_is_told_it_cannot() {
    let bus = EventBus::new();
    let c = ConversationId::new();
    let turn = Some(TurnId::new());
    bus.emit(c, turn, EventKind::TurnStarted); // 1
    for _ in 0..3 {
        bus.emit(c, turn, EventKind::TextDelta { text: "x".into() }); // 2..4
    }
    let mut back = bus.subscribe_with(c, Replay::After(2), Capacity::Bounded(room(16)));
    // The replayed deltas wait together in the queue: joined, with the last seq.
    let missed = back.try_recv().unwrap();
    assert_eq!((missed.seq, text(&missed)), (4, "xx"));
    assert!(back.try_recv().is_none());
    assert!(!back.missed_events());
    // A new turn drops the old one's events: an id from it cannot be resumed.
    bus.emit(c, Some(TurnId::new()), EventKind::TurnStarted); // 5
    let gap = bus.subscribe_with(c, Replay::After(2), Capacity::Bounded(room(16)));
    assert!(gap.missed_events());
    let fresh = bus.subscribe_with(c, Replay::After(4), Capacity::Bounded(room(16)));
    assert!(!fresh.missed_events(), "5 is kept: nothing was missed");
    // An id from a previous run of the process (ahead of this bus) is a gap too.
    let stale = bus.subscribe_with(c, Replay::After(900), Capacity::Bounded(room(16)));
    assert!(stale.missed_events());
}

/// Text and reasoning by turns: events that do not join.
fn alternating(i: usize) -> EventKind {
    if i.is_multiple_of(2) {
        EventKind::TextDelta { text: "x".into() }
    } else {
        EventKind::ReasoningDelta { text: "y".into() }
    }
}

#[test]
fn replay_keeps_only_the_latest_events() {
    let bus = EventBus::new();
    let c = ConversationId::new();
    let turn = Some(TurnId::new());
    bus.emit(c, turn, EventKind::TurnStarted);
    for i in 0..REPLAY_EVENTS + 10 {
        bus.emit(c, turn, alternating(i));
    }
    let mut all = bus.subscribe_with(c, Replay::RunningTurn, Capacity::Unbounded);
    let got = seqs(&mut all);
    assert_eq!(got.len(), REPLAY_EVENTS);
    assert_eq!(got.last(), Some(&(REPLAY_EVENTS as u64 + 11)));
    let resumed = bus.subscribe_with(c, Replay::After(1), Capacity::Unbounded);
    assert!(resumed.missed_events());
}

#[test]
fn a_long_answer_is_replayed_whole_and_resumed_exactly_after_any_delta() {
    let bus = EventBus::new();
    let c = ConversationId::new();
    let turn = Some(TurnId::new());
    bus.emit(c, turn, EventKind::TurnStarted); // 1
    let mut answer = String::new();
    // Far more deltas than the events kept: a run of deltas is kept as one.
    for i in 0..REPLAY_EVENTS * 3 {
        let piece = format!("{i} ");
        answer.push_str(&piece);
        bus.emit(c, turn, EventKind::TextDelta { text: piece }); // 2..
    }
    let mut mid = bus.subscribe_with(c, Replay::RunningTurn, Capacity::Unbounded);
    let started = mid.try_recv().unwrap();
    assert_eq!(started.kind, EventKind::TurnStarted);
    let text_so_far = mid.try_recv().unwrap();
    assert_eq!(text(&text_so_far), answer);
    assert_eq!(text_so_far.seq, REPLAY_EVENTS as u64 * 3 + 1);
    // A client that saw the deltas up to seq 11 (the first ten) gets the rest.
    let mut resumed = bus.subscribe_with(c, Replay::After(11), Capacity::Unbounded);
    assert!(!resumed.missed_events());
    let rest = resumed.try_recv().unwrap();
    let seen: String = (0..10).map(|i| format!("{i} ")).collect();
    assert_eq!(format!("{seen}{}", text(&rest)), answer);
}

#[test]
fn an_ended_turn_keeps_only_its_last_events() {
    let bus = EventBus::new();
    let c = ConversationId::new();
    let turn = Some(TurnId::new());
    bus.emit(c, turn, EventKind::TurnStarted);
    for i in 0..500 {
        bus.emit(c, turn, alternating(i)); // 2..501
    }
    let end = bus.emit(
        c,
        turn,
        EventKind::TurnCompleted {
            text: "x".into(),
            cut: None,
        },
    ); // 502
    let kept = KEPT_AFTER_TURN as u64;
    let mut near_end = bus.subscribe_with(c, Replay::After(end - kept), Capacity::Unbounded);
    assert!(!near_end.missed_events());
    assert_eq!(seqs(&mut near_end).len(), KEPT_AFTER_TURN);
    let early = bus.subscribe_with(c, Replay::After(10), Capacity::Unbounded);
    assert!(early.missed_events(), "the turn's early events are let go");
}

#[tokio::test]
async fn a_subscriber_that_stops_reading_is_dropped_and_the_others_go_on() {
    let bus = EventBus::new();
    let c = ConversationId::new();
    let mut slow = bus.subscribe_with(c, Replay::Nothing, Capacity::Bounded(room(4)));
    let mut live = bus.subscribe(c);
    for _ in 0..10 {
        bus.emit(c, None, EventKind::TurnCancelled); // events that do not join
    }
    assert_eq!(seqs(&mut live).len(), 10);
    // It gets what fitted, then the end, and learns why.
    assert_eq!(seqs(&mut slow), [1, 2, 3, 4]);
    assert!(slow.recv().await.is_none());
    assert!(slow.lagged());
    assert!(!live.lagged());
}

#[tokio::test]
async fn a_subscriber_reading_late_gets_the_deltas_that_waited_joined_and_is_kept() {
    let bus = EventBus::new();
    let c = ConversationId::new();
    let turn = Some(TurnId::new());
    // Room for four events: far fewer than the deltas emitted before it reads.
    let mut late = bus.subscribe_with(c, Replay::Nothing, Capacity::Bounded(room(4)));
    bus.emit(c, turn, EventKind::TurnStarted);
    for _ in 0..5_000 {
        bus.emit(c, turn, EventKind::TextDelta { text: "ab".into() });
    }
    let end = bus.emit(c, turn, EventKind::TurnCancelled);
    assert_eq!(late.queued(), 3);
    let started = late.recv().await.unwrap();
    assert_eq!(started.kind, EventKind::TurnStarted);
    let joined = late.recv().await.unwrap();
    assert_eq!(
        (joined.seq, text(&joined)),
        (end - 1, "ab".repeat(5_000).as_str())
    );
    assert_eq!(late.recv().await.unwrap().seq, end);
    assert!(!late.lagged());
}

#[test]
fn events_serialize_as_one_flat_object_with_a_type() {
    let conversation = ConversationId::new();
    let turn = TurnId::new();
    let json = serde_json::to_value(Event {
        conversation_id: conversation,
        turn_id: Some(turn),
        seq: 7,
        kind: EventKind::TurnFailed {
            error: "boom".into(),
        },
    })
    .unwrap();
    assert_eq!(json["type"], "TurnFailed");
    assert_eq!(json["error"], "boom");
    assert_eq!(json["seq"], 7);
    assert_eq!(json["conversation_id"], conversation.to_string());
    assert_eq!(json["turn_id"], turn.to_string());
    let untitled = serde_json::to_value(Event {
        conversation_id: conversation,
        turn_id: None,
        seq: 1,
        kind: EventKind::TurnCancelled,
    })
    .unwrap();
    assert!(untitled.get("turn_id").is_none(), "{untitled}");
    assert_eq!(untitled["type"], "TurnCancelled");
}

/// Records what a bus hands to its relay.
#[derive(Debug, Default)]
struct Recorded(Mutex<Vec<Event>>);

impl EventRelay for Recorded {
    fn publish(&self, event: &Event) {
        if let Ok(mut published) = self.0.lock() {
            published.push(event.clone());
        }
    }
}

#[tokio::test]
async fn emitted_events_go_to_the_relay_and_relayed_ones_are_numbered_here_but_not_sent_back() {
    let relay = Arc::new(Recorded::default());
    let bus = EventBus::with_relay(relay.clone());
    let conversation = ConversationId::new();
    let turn = Some(TurnId::new());
    let mut here = bus.subscribe(conversation);
    bus.emit(conversation, turn, EventKind::TurnStarted);
    // From another process, numbered there (seq 41): this bus numbers it itself.
    let remote = Event::new(
        conversation,
        turn,
        41,
        EventKind::TextDelta { text: "hi".into() },
    );
    assert_eq!(bus.emit_relayed(remote), 2);
    let first = here.recv().await.unwrap();
    let second = here.recv().await.unwrap();
    assert_eq!((first.seq, first.kind), (1, EventKind::TurnStarted));
    assert_eq!((second.seq, text(&second)), (2, "hi"));
    let published = relay.0.lock().unwrap().clone();
    assert_eq!(published.len(), 1, "a relayed event is never relayed back");
    assert_eq!(published[0].kind, EventKind::TurnStarted);
    // The envelope survives the trip as JSON.
    let json = serde_json::to_value(&second).unwrap();
    assert_eq!(serde_json::from_value::<Event>(json).unwrap(), second);
}
