//! The rows in a conversation's context, kept in memory between reads and checked
//! against the conversation's `version` in the same statement as each read.
//!
//! Every write of a conversation's rows, in any process, moves its version by one in
//! the statement or transaction that writes them (see `write/`). A read sends the
//! version of its copy; when the database still has that version the rows are not sent
//! again and the copy is the answer, else the rows read replace the copy. The writes
//! of this store's writer that add or complete rows (a turn's start, its steps, its
//! tool results) bring the copy along when it held the version just before them, so
//! the next turn of a conversation finds its rows here; any other write, or one of
//! another process, leaves the copy behind its version and the next read reads them.
//!
//! At most [`CAPACITY`] conversations are kept; the least recently used goes first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use smallebot_core::entities::{HistoryRow, Seq, ToolCall, ToolCallStatus};
use smallebot_core::ids::{ConversationId, TurnId};

/// Conversations whose rows are kept.
pub(crate) const CAPACITY: usize = 64;

/// The rows of one conversation after `boundary`, as of `version`.
#[derive(Debug)]
struct Entry {
    boundary: Seq,
    version: i64,
    rows: Vec<HistoryRow>,
    used: u64,
}

#[derive(Debug, Default)]
struct Entries {
    by_conversation: HashMap<ConversationId, Entry>,
    clock: u64,
}

/// The kept rows; clones share them.
#[derive(Debug, Clone, Default)]
pub(crate) struct RowsCache(Arc<Mutex<Entries>>);

/// What a write of this store did to a conversation's rows.
pub(crate) enum Written<'a> {
    /// Rows appended (a turn's user message, a step's rows); `ended` when the step
    /// ended `turn`.
    Appended {
        rows: &'a [HistoryRow],
        turn: TurnId,
        ended: bool,
    },
    /// Tool calls completed (each replaces the stored call).
    Completed(&'a [&'a ToolCall]),
}

impl RowsCache {
    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        // The map is consistent after every statement below: a panic elsewhere
        // never leaves it half changed.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The version of the kept rows of `conversation` after `boundary`, if any.
    pub(crate) fn version(&self, conversation: ConversationId, boundary: Seq) -> Option<i64> {
        let entries = self.entries();
        entries
            .by_conversation
            .get(&conversation)
            .filter(|e| e.boundary == boundary)
            .map(|e| e.version)
    }

    /// The kept rows when they are still those of `version` after `boundary`.
    pub(crate) fn rows(
        &self,
        conversation: ConversationId,
        boundary: Seq,
        version: i64,
    ) -> Option<Vec<HistoryRow>> {
        let mut entries = self.entries();
        entries.clock += 1;
        let now = entries.clock;
        let entry = entries
            .by_conversation
            .get_mut(&conversation)
            .filter(|e| e.boundary == boundary && e.version == version)?;
        entry.used = now;
        Some(entry.rows.clone())
    }

    /// Keeps `rows`, just read at `version`, unless newer rows are kept.
    pub(crate) fn keep(
        &self,
        conversation: ConversationId,
        boundary: Seq,
        version: i64,
        rows: &[HistoryRow],
    ) {
        let mut entries = self.entries();
        entries.clock += 1;
        let used = entries.clock;
        if let Some(kept) = entries.by_conversation.get(&conversation)
            && kept.version > version
        {
            return;
        }
        if entries.by_conversation.len() >= CAPACITY
            && !entries.by_conversation.contains_key(&conversation)
        {
            let oldest = entries
                .by_conversation
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(id, _)| *id);
            if let Some(oldest) = oldest {
                entries.by_conversation.remove(&oldest);
            }
        }
        entries.by_conversation.insert(
            conversation,
            Entry {
                boundary,
                version,
                rows: rows.to_vec(),
                used,
            },
        );
    }

    /// Forgets the rows of `conversation`.
    pub(crate) fn forget(&self, conversation: ConversationId) {
        self.entries().by_conversation.remove(&conversation);
    }

    /// Brings the kept rows of `conversation` along with a write of this store that
    /// moved its version to `version`: applied when they were one version behind,
    /// left when a read already kept the rows of `version` or later, forgotten
    /// otherwise (a write they missed).
    pub(crate) fn written(&self, conversation: ConversationId, version: i64, write: Written<'_>) {
        let mut entries = self.entries();
        let Some(entry) = entries.by_conversation.get_mut(&conversation) else {
            return;
        };
        if entry.version >= version {
            return;
        }
        let applied = entry.version + 1 == version && apply(&mut entry.rows, write);
        if applied {
            entry.version = version;
        } else {
            entries.by_conversation.remove(&conversation);
        }
    }
}

/// Applies `write` to `rows`; false when the kept rows cannot follow it.
fn apply(rows: &mut Vec<HistoryRow>, write: Written<'_>) -> bool {
    match write {
        Written::Appended {
            rows: added,
            turn,
            ended,
        } => {
            // Ending a turn ends its calls still running (a trigger): a change these
            // rows would not show.
            let running = |row: &HistoryRow| {
                matches!(row, HistoryRow::ToolCall(call)
                    if call.turn_id == turn && call.status == ToolCallStatus::Running)
            };
            if ended && rows.iter().chain(added).any(running) {
                return false;
            }
            rows.extend_from_slice(added);
            true
        }
        Written::Completed(calls) => calls.iter().all(|done| {
            let kept = rows.iter_mut().find(|row| {
                matches!(row, HistoryRow::ToolCall(call)
                    if call.turn_id == done.turn_id && call.call_id == done.call_id)
            });
            match kept {
                Some(row) => {
                    *row = HistoryRow::ToolCall((*done).clone());
                    true
                }
                None => false,
            }
        }),
    }
}

#[cfg(test)]
mod tests;
