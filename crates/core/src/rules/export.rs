//! A conversation written as Markdown for a person to keep or share, and the file
//! name it is saved under.

use std::fmt::Write as _;

use crate::entities::{ConversationExport, HistoryRow, Role, ToolCall, TurnStatus};
use crate::time::format_timestamp;

/// `export` as Markdown: the title, the compression summary when there is one, then
/// each turn — the user's message under `## You`, the answers under `## Assistant` as
/// the model wrote them (not escaped), each tool call under `### Tool: name` with its
/// arguments and result in fenced blocks — and a line for a turn that failed, was
/// stopped, interrupted or undone. Reasoning and replaced message versions are left
/// out.
#[must_use]
pub fn markdown(export: &ConversationExport) -> String {
    let c = &export.conversation;
    let mut out = format!("# {}\n\n", c.title);
    let _ = writeln!(
        out,
        "_Exported from SmallEBot: conversation `{}` of {}, started {}._\n",
        c.id,
        c.user_name,
        format_timestamp(&c.created_at)
    );
    if let Some(summary) = &c.compressed_context {
        let _ = writeln!(
            out,
            "## Summary of earlier turns\n\n{}\n",
            summary.trim_end()
        );
    }
    for turn in &export.turns {
        let rows = export.rows.iter().filter(|r| r.turn_id() == turn.id);
        if turn.undone_at.is_some() {
            out.push_str("> _Undone: this turn was taken out of the context._\n\n");
        }
        for row in rows {
            match row {
                HistoryRow::Message(m) if m.replaced_by.is_none() => {
                    let who = match m.role {
                        Role::User => "You",
                        Role::Assistant => "Assistant",
                    };
                    let _ = writeln!(out, "## {who}\n\n{}\n", m.content.trim_end());
                }
                HistoryRow::ToolCall(call) => tool_call(&mut out, call),
                _ => {}
            }
        }
        match turn.status {
            TurnStatus::Failed => {
                let error = turn.error.as_deref().unwrap_or("no error was stored");
                let _ = writeln!(out, "> **Failed:** {}\n", one_line(error));
            }
            TurnStatus::Cancelled => out.push_str("> **Stopped** before the answer ended.\n\n"),
            TurnStatus::Interrupted => {
                out.push_str("> **Interrupted:** the server stopped during this turn.\n\n");
            }
            _ => {}
        }
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

/// A tool call's section.
fn tool_call(out: &mut String, call: &ToolCall) {
    let _ = writeln!(
        out,
        "### Tool: {} ({})\n\n{}",
        call.tool_name,
        call.status.as_str(),
        fenced("json", &call.arguments)
    );
    if let Some(result) = &call.result {
        let _ = writeln!(out, "{}", fenced("text", result));
    }
}

/// `text` in a code fence longer than any run of backticks in it.
fn fenced(language: &str, text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!(
        "{fence}{language}\n{}\n{fence}\n",
        text.trim_end_matches('\n')
    )
}

/// `text` on one line (an error inside a quote).
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The file name an export of a conversation titled `title` is saved under: the
/// title's letters and digits (ASCII), other runs as one `-`, at most 60 characters,
/// `conversation` when nothing is left; then `.extension`.
#[must_use]
pub fn file_name(title: &str, extension: &str) -> String {
    let mut name = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
        if name.len() >= 60 {
            break;
        }
    }
    let name = name.trim_end_matches('-');
    let name = if name.is_empty() {
        "conversation"
    } else {
        name
    };
    format!("{name}.{extension}")
}

#[cfg(test)]
#[path = "export_tests.rs"]
mod tests;
