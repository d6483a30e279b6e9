//! Rows → transcript entries for the summarizer.

use smallebot_core::entities::{HistoryRow, Message, Role};
use smallebot_core::rules::attachment_text::attachment_label;
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

/// Labelled entries: `USER:` (its attachments named by their labels, `[image:
/// error.png 1280×720]`, never sent), `ASSISTANT:`, `TOOL CALL: Name(args)`, `TOOL
/// RESULT:` (cut to `result_limit(tool name)` characters, as the model saw it).
/// Reasoning and replaced messages are not part of it.
#[must_use]
pub fn transcript_entries(rows: &[HistoryRow], result_limit: &dyn Fn(&str) -> usize) -> Vec<Entry> {
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
            HistoryRow::Message(m) if m.role == Role::User => push(EntryKind::User, user_entry(m)),
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
                        truncate_tool_result(result, result_limit(&t.tool_name))
                    ),
                );
            }
            HistoryRow::ThinkBlock(_) => {}
        }
    }
    entries
}

/// `USER: text`, then a line naming the message's attachments.
fn user_entry(message: &Message) -> String {
    let mut entry = format!("USER: {}", message.content);
    if !message.attachments.is_empty() {
        let labels: Vec<String> = message.attachments.iter().map(attachment_label).collect();
        entry.push_str(&format!("\n(attached: {})", labels.join(" ")));
    }
    entry
}

#[cfg(test)]
mod tests {
    use smallebot_core::entities::{ToolCall, ToolCallStatus};
    use smallebot_core::ids::{ConversationId, ToolCallId, TurnId};

    use super::*;

    fn call(tool: &str, result: &str) -> HistoryRow {
        HistoryRow::ToolCall(ToolCall {
            id: ToolCallId::new(),
            conversation_id: ConversationId::new(),
            turn_id: TurnId::new(),
            seq: 1,
            call_id: "c".into(),
            tool_name: tool.into(),
            arguments: "{}".into(),
            result: Some(result.into()),
            status: ToolCallStatus::Ok,
            token_count: 1,
            started_at: chrono::Utc::now(),
            completed_at: None,
        })
    }

    #[test]
    fn results_are_cut_to_their_tools_limit() {
        let long = "z".repeat(3_000);
        let rows = [call("Wide", &long), call("Narrow", &long)];
        let limit = |tool: &str| if tool == "Wide" { 2_000 } else { 200 };
        let results: Vec<usize> = transcript_entries(&rows, &limit)
            .into_iter()
            .filter(|e| e.kind == EntryKind::ToolResult)
            .map(|e| e.text.chars().count())
            .collect();
        assert_eq!(results.len(), 2);
        assert!(results[0] > 1_900 && results[0] < 2_100, "{results:?}");
        assert!(results[1] > 150 && results[1] < 300, "{results:?}");
    }
}
