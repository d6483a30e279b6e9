//! The last turns of a conversation, shown when it is reopened (`chat` continuing one,
//! `chat --conversation`, `/switch`).

use std::fmt::Write as _;

use smallebot_core::entities::{HistoryRow, Role};
use smallebot_core::ids::TurnId;
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_core::rules::truncation::truncate_with_marker;

use super::markdown::AnswerView;

/// Turns shown when a conversation is reopened.
pub const RESUMED_TURNS: usize = 3;
/// Characters of each shown message (the whole timeline: `conversations show`).
const SHOWN_MESSAGE_CHARS: usize = 2_000;
/// Characters of a tool call's arguments.
const SHOWN_ARGUMENT_CHARS: usize = 120;

/// The rows of the last `turns` turns as the chat shows them: `› ` before what the
/// person typed, the answers (rendered as `answers` shows them), one line per tool call; reasoning and replaced messages
/// left out, everything escaped; what the person typed in an `undone` turn is marked
/// `[undone]`. Empty when there are no rows.
#[must_use]
pub fn recent_transcript(
    rows: &[HistoryRow],
    turns: usize,
    undone: &[TurnId],
    answers: &AnswerView,
) -> String {
    // A turn's rows are contiguous in `seq` order: a new turn starts where the id changes.
    let mut order: Vec<TurnId> = Vec::new();
    for row in rows {
        if order.last() != Some(&row.turn_id()) {
            order.push(row.turn_id());
        }
    }
    let skipped = order.len().saturating_sub(turns);
    let shown = &order[skipped..];
    let mut out = String::new();
    if skipped > 0 {
        let _ = writeln!(out, "… {skipped} earlier turn(s)");
    }
    for row in rows.iter().filter(|r| shown.contains(&r.turn_id())) {
        match row {
            HistoryRow::Message(m) if m.replaced_by.is_some() || m.content.trim().is_empty() => {}
            HistoryRow::Message(m) => {
                let text = truncate_with_marker(m.content.trim_end(), SHOWN_MESSAGE_CHARS, "…");
                let shown = match m.role {
                    Role::User if undone.contains(&m.turn_id) => {
                        format!("› [undone] {}", escape_controls(&text))
                    }
                    Role::User => format!("› {}", escape_controls(&text)),
                    Role::Assistant => answers.render(&text),
                };
                let _ = writeln!(out, "{shown}");
            }
            HistoryRow::ToolCall(c) => {
                let args = truncate_with_marker(&c.arguments, SHOWN_ARGUMENT_CHARS, "…");
                let _ = writeln!(
                    out,
                    "  ⚙ {}({}) [{}]",
                    escape_controls(&c.tool_name),
                    escape_controls(&args),
                    c.status.as_str()
                );
            }
            HistoryRow::ThinkBlock(_) => {}
        }
    }
    out
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
