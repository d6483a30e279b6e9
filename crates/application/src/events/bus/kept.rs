//! A conversation's kept events, for replay: a run of consecutive deltas of a turn is
//! kept as one entry (its text joined, with where each delta's text ends), so a long
//! answer of many thousands of deltas takes a few entries, and a client resuming after
//! any of those deltas still gets exactly the text it missed.

use std::collections::VecDeque;

use super::queue::join;
use crate::events::{Event, EventKind};

/// One kept event, or a run of joined deltas.
#[derive(Debug)]
struct Entry {
    /// The event; for a run of deltas, their text joined and the last one's `seq`.
    event: Event,
    /// For a run of deltas: where each one's text ends in the joined text, in order
    /// (the run's `seq`s are consecutive, ending at `event.seq`); empty otherwise.
    ends: Vec<u32>,
}

impl Entry {
    /// The `seq` of the first event this entry holds.
    fn first_seq(&self) -> u64 {
        let joined = u64::try_from(self.ends.len()).unwrap_or(u64::MAX);
        self.event.seq.saturating_sub(joined.saturating_sub(1))
    }

    /// The events after `seq` this entry holds, as one event (`None`: none).
    fn after(&self, seq: u64) -> Option<Event> {
        if self.event.seq <= seq {
            return None;
        }
        let first = self.first_seq();
        if seq < first {
            return Some(self.event.clone());
        }
        // `seq` is one of the joined deltas: the text after its end.
        let seen = usize::try_from(seq - first).ok()?;
        let from = usize::try_from(*self.ends.get(seen)?).ok()?;
        let mut event = self.event.clone();
        if let EventKind::TextDelta { text } | EventKind::ReasoningDelta { text } = &mut event.kind
        {
            *text = text.get(from..)?.to_owned();
        }
        Some(event)
    }
}

/// The kept events of one conversation, oldest first, at most a given number of
/// entries (a run of deltas is one).
#[derive(Debug, Default)]
pub(super) struct Kept {
    entries: VecDeque<Entry>,
}

impl Kept {
    /// Keeps `event`, joined onto the run of deltas before it when it continues it; the
    /// oldest entry goes when there would be more than `most`.
    pub(super) fn push(&mut self, event: &Event, most: usize) {
        if let Some(last) = self.entries.back_mut()
            && consecutive(&last.event, event)
            && let Some(have) = last
                .event
                .delta_text()
                .map(str::len)
                .and_then(|l| u32::try_from(l).ok())
            && let Some(end) = event
                .delta_text()
                .map(str::len)
                .and_then(|l| u32::try_from(l).ok())
                .and_then(|l| have.checked_add(l))
        {
            let single = last.ends.is_empty();
            // Joined only when the two are deltas of one kind in one turn.
            if join(&mut last.event, event.clone()).is_none() {
                if single {
                    last.ends.push(have);
                }
                last.ends.push(end);
                return;
            }
        }
        if self.entries.len() >= most.max(1) {
            self.entries.pop_front();
        }
        self.entries.push_back(Entry {
            event: event.clone(),
            ends: Vec::new(),
        });
    }

    /// Forgets everything.
    pub(super) fn clear(&mut self) {
        self.entries.clear();
    }

    /// Keeps only the `most` latest entries.
    pub(super) fn keep_latest(&mut self, most: usize) {
        let surplus = self.entries.len().saturating_sub(most);
        self.entries.drain(..surplus);
    }

    /// The `seq` of the oldest event kept.
    pub(super) fn oldest_seq(&self) -> Option<u64> {
        self.entries.front().map(Entry::first_seq)
    }

    /// Every kept event, runs of deltas joined.
    pub(super) fn all(&self) -> Vec<Event> {
        self.entries.iter().map(|e| e.event.clone()).collect()
    }

    /// The kept events after `seq` (the part of a run of deltas after it).
    pub(super) fn after(&self, seq: u64) -> Vec<Event> {
        self.entries.iter().filter_map(|e| e.after(seq)).collect()
    }
}

/// Whether `next` comes right after `last` (the run's `seq`s stay consecutive).
fn consecutive(last: &Event, next: &Event) -> bool {
    last.seq.checked_add(1) == Some(next.seq)
}

#[cfg(test)]
mod tests;
