//! Kept events: runs of deltas joined, resumed exactly after any delta of a run.
use smallebot_core::ids::{ConversationId, TurnId};

use super::*;

fn text(t: &str) -> EventKind {
    EventKind::TextDelta { text: t.into() }
}

fn reasoning(t: &str) -> EventKind {
    EventKind::ReasoningDelta { text: t.into() }
}

/// Kept: 1 TurnStarted, 2–4 "ab" "cd" "ef", 5 reasoning "r", 6 "gh", 7 TurnCancelled.
fn kept() -> (Kept, ConversationId, Option<TurnId>) {
    let (c, t) = (ConversationId::new(), Some(TurnId::new()));
    let mut kept = Kept::default();
    let kinds = [
        EventKind::TurnStarted,
        text("ab"),
        text("cd"),
        text("ef"),
        reasoning("r"),
        text("gh"),
        EventKind::TurnCancelled,
    ];
    for (seq, kind) in (1..).zip(kinds) {
        kept.push(&Event::new(c, t, seq, kind), 100);
    }
    (kept, c, t)
}

#[test]
fn a_run_of_deltas_is_one_entry_and_resumes_after_any_of_its_deltas() {
    let (kept, c, t) = kept();
    let all = kept.all();
    assert_eq!(
        all,
        [
            Event::new(c, t, 1, EventKind::TurnStarted),
            Event::new(c, t, 4, text("abcdef")),
            Event::new(c, t, 5, reasoning("r")),
            Event::new(c, t, 6, text("gh")),
            Event::new(c, t, 7, EventKind::TurnCancelled),
        ]
    );
    // (resume after, the first event given and how many)
    let cases = [
        (0, Event::new(c, t, 1, EventKind::TurnStarted), 5),
        (1, Event::new(c, t, 4, text("abcdef")), 4),
        (2, Event::new(c, t, 4, text("cdef")), 4),
        (3, Event::new(c, t, 4, text("ef")), 4),
        (4, Event::new(c, t, 5, reasoning("r")), 3),
        (6, Event::new(c, t, 7, EventKind::TurnCancelled), 1),
    ];
    for (seq, first, count) in cases {
        let after = kept.after(seq);
        assert_eq!(after.first(), Some(&first), "after {seq}");
        assert_eq!(after.len(), count, "after {seq}");
    }
    assert!(kept.after(7).is_empty());
    assert_eq!(kept.oldest_seq(), Some(1));
}

#[test]
fn only_consecutive_deltas_of_one_kind_in_one_turn_join() {
    let c = ConversationId::new();
    let (t, other_turn) = (Some(TurnId::new()), Some(TurnId::new()));
    let mut kept = Kept::default();
    kept.push(&Event::new(c, t, 1, text("a")), 100);
    kept.push(&Event::new(c, other_turn, 2, text("b")), 100);
    kept.push(&Event::new(c, other_turn, 4, text("c")), 100); // 3 was someone else's
    kept.push(&Event::new(c, other_turn, 5, reasoning("d")), 100);
    assert_eq!(kept.all().len(), 4);
}

#[test]
fn the_oldest_entries_go_first_and_a_trimmed_run_says_where_it_starts() {
    let (mut kept, c, t) = kept();
    kept.keep_latest(3);
    assert_eq!(kept.oldest_seq(), Some(5));
    let (mut runs, c2) = (Kept::default(), c);
    for seq in 1..=3 {
        runs.push(&Event::new(c2, t, seq, text("x")), 2);
    }
    runs.push(&Event::new(c2, t, 4, EventKind::TurnCancelled), 2);
    runs.push(&Event::new(c2, t, 5, EventKind::TurnCancelled), 2);
    // At most two entries: the run (1–3) went.
    assert_eq!(runs.oldest_seq(), Some(4));
}
