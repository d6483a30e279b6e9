//! Rows → transcript entries for the summarizer.

use smallebot_core::entities::{HistoryRow, Role};
use smallebot_core::rules::truncation::truncate_tool_result;

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EntryKind {
    /// A user message.
    User,
    /// An assistant message.
    Assistant,
    /// A tool call (name and arguments).
    ToolCall,
    /// A tool result (droppable when the input is too long).
    ToolResult,
}

/// One line of the transcript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// What it is.
    pub kind: EntryKind,
    /// The labelled text.
    pub text: String,
    /// Its token count (filled in by the caller).
    pub tokens: u64,
}

/// The placeholder of a tool result dropped to fit the window.
pub const OMITTED_RESULT: &str = "TOOL RESULT: [omitted to fit the summarizer's context window]";

/// Labelled entries: `USER:`, `ASSISTANT:`, `TOOL CALL: Name(args)`, `TOOL RESULT:` (cut
/// to `max_result_chars`). Reasoning and replaced messages are not part of it.
#[must_use]
pub fn transcript_entries(rows: &[HistoryRow], max_result_chars: usize) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut push = |kind, text: String| {
        entries.push(Entry {
            kind,
            text,
            tokens: 0,
        })
    };
    for row in rows {
        match row {
            HistoryRow::Message(m) if m.replaced_by.is_some() => {}
            HistoryRow::Message(m) if m.role == Role::User => {
                push(EntryKind::User, format!("USER: {}", m.content))
            }
            HistoryRow::Message(m) => {
                if !m.content.is_empty() {
                    push(EntryKind::Assistant, format!("ASSISTANT: {}", m.content));
                }
            }
            HistoryRow::ToolCall(t) => {
                push(
                    EntryKind::ToolCall,
                    format!(
                        "TOOL CALL: {}({}) [{}]",
                        t.tool_name,
                        t.arguments,
                        t.status.as_str()
                    ),
                );
                let result = t.result.as_deref().unwrap_or("(no result)");
                push(
                    EntryKind::ToolResult,
                    format!(
                        "TOOL RESULT: {}",
                        truncate_tool_result(result, max_result_chars)
                    ),
                );
            }
            HistoryRow::ThinkBlock(_) => {}
        }
    }
    entries
}
