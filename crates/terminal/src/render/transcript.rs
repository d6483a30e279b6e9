//! The last turns of a conversation, shown when it is reopened (`chat` continuing one,
//! `chat --conversation`, `/switch`).

use std::fmt::Write as _;

use smallebot_core::entities::{HistoryRow, Role};
use smallebot_core::ids::TurnId;
use smallebot_core::rules::attachment_text::attachment_label;
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_core::rules::truncation::truncate_with_marker;

use super::markdown::AnswerView;

/// Turns shown when a conversation is reopened.
pub const RESUMED_TURNS: usize = 3;
/// Characters of each shown message (the whole timeline: `conversations show`).
const SHOWN_MESSAGE_CHARS: usize = 2_000;
/// Characters of a tool call's arguments.
const SHOWN_ARGUMENT_CHARS: usize = 120;
/// Lines of each shown message (a long one is cut: `/history` shows it whole).
const SHOWN_MESSAGE_LINES: usize = 20;

/// The rows of the last `turns` turns as the chat shows them, bounded: how many earlier
/// turns are left out (`/history` shows them), `› ` before what the person typed, the
/// answers cut to `SHOWN_MESSAGE_LINES` lines and rendered as `answers` shows them, one line per tool call; reasoning and
/// replaced messages left out, everything escaped; what the person typed in an
/// `undone` turn is marked `[undone]`, and a turn listed in `ended` (one that did not
/// complete) is followed by its mark, such as `(cancelled)`. Empty when there are no
/// rows.
#[must_use]
pub fn recent_transcript(
    rows: &[HistoryRow],
    turns: usize,
    undone: &[TurnId],
    ended: &[(TurnId, String)],
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
        let _ = writeln!(out, "… {skipped} earlier turn(s) — /history shows them");
    }
    let mark_of = |turn: TurnId| ended.iter().find(|(id, _)| *id == turn).map(|(_, m)| m);
    let shown_rows: Vec<&HistoryRow> = rows
        .iter()
        .filter(|r| shown.contains(&r.turn_id()))
        .collect();
    for (at, row) in shown_rows.iter().enumerate() {
        let turn = row.turn_id();
        let last_of_turn = shown_rows
            .get(at + 1)
            .is_none_or(|next| next.turn_id() != turn);
        match row {
            HistoryRow::Message(m)
                if m.replaced_by.is_some()
                    || (m.content.trim().is_empty() && m.attachments.is_empty()) => {}
            HistoryRow::Message(m) => {
                let text = bounded(&truncate_with_marker(
                    m.content.trim_end(),
                    SHOWN_MESSAGE_CHARS,
                    "…",
                ));
                let shown = match m.role {
                    Role::User if undone.contains(&m.turn_id) => {
                        format!("› [undone] {}", escape_controls(&text))
                    }
                    Role::User => format!("› {}", escape_controls(&text)),
                    Role::Assistant => answers.render(&text),
                };
                let _ = writeln!(out, "{shown}");
                for attachment in &m.attachments {
                    let _ = writeln!(out, "  {}", escape_controls(&attachment_label(attachment)));
                }
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
        if let Some(mark) = mark_of(turn).filter(|_| last_of_turn) {
            let _ = writeln!(out, "({})", escape_controls(mark));
        }
    }
    out
}

/// `text` cut to [`SHOWN_MESSAGE_LINES`] lines, saying how many more there are.
fn bounded(text: &str) -> String {
    let total = text.lines().count();
    if total <= SHOWN_MESSAGE_LINES {
        return text.to_owned();
    }
    let mut kept: Vec<&str> = text.lines().take(SHOWN_MESSAGE_LINES).collect();
    let more = format!("… ({} more lines — /history)", total - SHOWN_MESSAGE_LINES);
    kept.push(&more);
    kept.join("\n")
}

#[cfg(test)]
#[path = "transcript_tests.rs"]
mod tests;
