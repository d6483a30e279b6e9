//! Which rows a compression summarizes: every row after the current boundary except
//! the last `keep_recent_turns` turns, which stay verbatim. Turn granular, decided by
//! `seq` alone (timestamps may tie).

use crate::entities::{HistoryRow, Seq};
use crate::ids::TurnId;

/// The rows to summarize.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompressionScope {
    /// Index one past the last row to summarize in the given slice (rows `[..end]`).
    pub end: usize,
    /// The new boundary: the `seq` of the last summarized row.
    pub through_seq: Seq,
    /// How many turns are summarized.
    pub turns: usize,
}

/// The turns of `rows` in order of their first row.
#[must_use]
pub fn turn_order(rows: &[HistoryRow]) -> Vec<TurnId> {
    let mut order: Vec<TurnId> = Vec::new();
    for row in rows {
        if order.last() != Some(&row.turn_id()) && !order.contains(&row.turn_id()) {
            order.push(row.turn_id());
        }
    }
    order
}

/// Chooses what to summarize from `rows` (the rows after the boundary, in `seq`
/// order). `None` when fewer than `keep_recent_turns + 1` turns are there.
#[must_use]
pub fn compression_scope(
    rows: &[HistoryRow],
    keep_recent_turns: usize,
) -> Option<CompressionScope> {
    let order = turn_order(rows);
    if order.len() <= keep_recent_turns {
        return None;
    }
    let first_kept = order.get(order.len() - keep_recent_turns).copied();
    let end = match first_kept {
        Some(kept) => rows.iter().position(|r| r.turn_id() == kept)?,
        None => rows.len(),
    };
    if end == 0 {
        return None;
    }
    Some(CompressionScope {
        end,
        through_seq: rows[end - 1].seq(),
        turns: order.len() - keep_recent_turns,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entities::{Message, Role};
    use crate::ids::{ConversationId, MessageId};
    use chrono::Utc;

    fn rows(spec: &[(usize, Seq)]) -> (Vec<HistoryRow>, Vec<TurnId>) {
        let turns: Vec<TurnId> = (0..10).map(|_| TurnId::new()).collect();
        let conversation_id = ConversationId::new();
        let at = Utc::now();
        let rows = spec
            .iter()
            .map(|(turn, seq)| {
                HistoryRow::Message(Message {
                    id: MessageId::new(),
                    conversation_id,
                    turn_id: turns[*turn],
                    seq: *seq,
                    role: Role::User,
                    content: String::new(),
                    token_count: 1,
                    created_at: at,
                    replaced_by: None,
                    is_edited: false,
                    attachments: Vec::new(),
                })
            })
            .collect();
        (rows, turns)
    }

    /// (turn index, seq) per row, turns to keep, expected (end, through_seq, turns).
    type Case = (&'static [(usize, Seq)], usize, Option<(usize, Seq, usize)>);

    #[test]
    fn keeps_the_last_turns_and_summarizes_the_rest() {
        let cases: &[Case] = &[
            (&[], 2, None),
            (&[(0, 2), (0, 3)], 2, None),
            (&[(0, 2), (0, 3), (1, 5)], 2, None),
            (
                &[(0, 2), (0, 3), (1, 5), (2, 7), (2, 8)],
                2,
                Some((2, 3, 1)),
            ),
            (
                &[(0, 2), (0, 3), (1, 5), (1, 6), (2, 8)],
                1,
                Some((4, 6, 2)),
            ),
            (&[(0, 2), (1, 4), (2, 6), (3, 8)], 2, Some((2, 4, 2))),
            (&[(0, 2), (0, 3)], 0, Some((2, 3, 1))),
            // A later boundary: seqs need not start at 1.
            (&[(4, 40), (5, 42), (5, 43), (6, 45)], 1, Some((3, 43, 2))),
        ];
        for (spec, keep, expected) in cases {
            let (rows, _) = rows(spec);
            let got = compression_scope(&rows, *keep).map(|s| (s.end, s.through_seq, s.turns));
            assert_eq!(got, *expected, "rows {spec:?} keep {keep}");
        }
    }

    #[test]
    fn turn_order_follows_first_appearance() {
        let (rows, turns) = rows(&[(1, 1), (1, 2), (0, 3), (2, 4)]);
        assert_eq!(turn_order(&rows), [turns[1], turns[0], turns[2]]);
    }
}

/// Where a request's rows must start so their stored token counts fit in `available`
/// tokens: whole turns are left out from the oldest, never `current` (the running
/// turn). Returns the index of the first row to send (0 when everything fits).
#[must_use]
pub fn first_row_that_fits(rows: &[HistoryRow], available: i64, current: TurnId) -> usize {
    let mut total: i64 = rows.iter().map(HistoryRow::token_count).sum();
    let mut start = 0;
    while total > available && start < rows.len() {
        let turn = rows[start].turn_id();
        if turn == current {
            break;
        }
        while start < rows.len() && rows[start].turn_id() == turn {
            total -= rows[start].token_count();
            start += 1;
        }
    }
    start
}

#[cfg(test)]
mod fit_tests {
    use super::*;
    use crate::entities::{Message, Role};
    use crate::ids::{ConversationId, MessageId};

    #[test]
    fn leaves_out_whole_old_turns_but_never_the_current_one() {
        let turns: Vec<TurnId> = (0..3).map(|_| TurnId::new()).collect();
        let c = ConversationId::new();
        let at = chrono::Utc::now();
        let row = |turn: usize, seq: i64, tokens: i64| {
            HistoryRow::Message(Message {
                id: MessageId::new(),
                conversation_id: c,
                turn_id: turns[turn],
                seq,
                role: Role::User,
                content: String::new(),
                token_count: tokens,
                created_at: at,
                replaced_by: None,
                is_edited: false,
                attachments: Vec::new(),
            })
        };
        let rows = vec![row(0, 1, 50), row(0, 2, 50), row(1, 3, 30), row(2, 4, 40)];
        let cases = [
            (1000, 0),
            (170, 0),
            (169, 2),
            (100, 2),
            (70, 2),
            (69, 3),
            (40, 3),
            (10, 3),
        ];
        for (available, expected) in cases {
            assert_eq!(
                first_row_that_fits(&rows, available, turns[2]),
                expected,
                "available {available}"
            );
        }
    }
}
