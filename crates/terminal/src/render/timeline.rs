//! `conversations list` lines and the `conversations show` timeline.

use std::collections::HashMap;
use std::fmt::Write as _;

use smallebot_application::wire::bodies::answer_cut;
use smallebot_core::entities::{Conversation, HistoryRow, Role, Turn};
use smallebot_core::ids::TurnId;
use smallebot_core::rules::attachment_text::attachment_label;
use smallebot_core::rules::truncation::truncate_with_marker;
use smallebot_core::time::Timestamp;

/// Tool results in the timeline are cut to this many characters.
const SHOWN_RESULT_CHARS: usize = 300;
/// Reasoning in the timeline is cut to this many characters.
const SHOWN_REASONING_CHARS: usize = 300;

fn minute(at: &Timestamp) -> String {
    at.format("%Y-%m-%d %H:%M").to_string()
}

/// One line of `conversations list`.
pub fn conversation_line(c: &Conversation) -> String {
    let compressed = if c.compressed_through_seq.is_some() {
        "  [compressed]"
    } else {
        ""
    };
    format!(
        "{}  {}  {:<10}  {}{compressed}",
        c.id,
        minute(&c.updated_at),
        c.user_name,
        c.title
    )
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|l| format!("{prefix}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A turn's header: status, time, and its error, cut and undone marks.
fn turn_header(t: &Turn) -> String {
    let error = t
        .error
        .as_deref()
        .map(|e| format!(" — {e}"))
        .unwrap_or_default();
    let undone = t
        .undone_at
        .as_ref()
        .map(|at| format!(" · [undone {}: not sent to the model]", minute(at)))
        .unwrap_or_default();
    let cut = t
        .cut
        .map(|cut| format!(" · [{}]", super::event_lines::cut_mark(answer_cut(cut))))
        .unwrap_or_default();
    format!(
        "{} · {}{error}{cut}{undone}",
        t.status.as_str(),
        minute(&t.created_at)
    )
}

/// The readable timeline of one conversation: turns with their status, user and
/// assistant text, tool calls with status and shortened result, reasoning, a
/// `[summarized]` mark on every row at or before the compression boundary, and an
/// `[undone …]` mark on turns taken out of the context with `/undo`.
pub fn render_timeline(c: &Conversation, turns: &[Turn], rows: &[HistoryRow]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} — {}", c.title, c.id);
    let _ = writeln!(
        out,
        "user {} · created {} · updated {}",
        c.user_name,
        minute(&c.created_at),
        minute(&c.updated_at)
    );
    let boundary = c.history_boundary();
    if let (Some(summary), Some(through)) = (&c.compressed_context, c.compressed_through_seq) {
        let at = c.compressed_at.as_ref().map(minute).unwrap_or_default();
        let _ = writeln!(
            out,
            "\nSummary of rows 1–{through} (compressed {at}; those rows are marked [summarized]):"
        );
        let _ = writeln!(out, "{}", indent(summary, "  │ "));
    }
    let turn_by_id: HashMap<TurnId, &Turn> = turns.iter().map(|t| (t.id, t)).collect();
    let mut current_turn: Option<TurnId> = None;
    let mut number = 0;
    for row in rows {
        // Empty assistant messages only mark where a step's tool calls begin.
        if matches!(row, HistoryRow::Message(m) if m.role == Role::Assistant && m.content.is_empty())
        {
            continue;
        }
        if current_turn != Some(row.turn_id()) {
            current_turn = Some(row.turn_id());
            number += 1;
            let header = turn_by_id
                .get(&row.turn_id())
                .map_or_else(|| "unknown turn".to_owned(), |t| turn_header(t));
            let _ = writeln!(out, "\n── turn {number} · {header}");
        }
        let mark = if row.seq() <= boundary {
            "[summarized] "
        } else {
            ""
        };
        let line = match row {
            HistoryRow::Message(m) => {
                let who = match m.role {
                    Role::User => "USER",
                    Role::Assistant => "ASSISTANT",
                };
                let note = match (m.replaced_by.is_some(), m.is_edited) {
                    (true, _) => " (replaced by an edit)",
                    (false, true) => " (edited)",
                    _ => "",
                };
                let mut line = format!("{who}{note}: {}", m.content);
                for attachment in &m.attachments {
                    line.push('\n');
                    line.push_str(&attachment_label(attachment));
                }
                line
            }
            HistoryRow::ToolCall(t) => {
                let result = t.result.as_deref().map_or_else(
                    || "(no result)".to_owned(),
                    |r| truncate_with_marker(r, SHOWN_RESULT_CHARS, "…").into_owned(),
                );
                format!(
                    "TOOL {}({}) [{}] → {result}",
                    t.tool_name,
                    t.arguments,
                    t.status.as_str()
                )
            }
            HistoryRow::ThinkBlock(b) => format!(
                "REASONING: {}",
                truncate_with_marker(&b.content, SHOWN_REASONING_CHARS, "…")
            ),
        };
        let _ = writeln!(out, "{}", indent(&format!("{mark}{line}"), "  "));
    }
    if rows.is_empty() {
        let _ = writeln!(out, "\n(no messages yet)");
    }
    out
}
