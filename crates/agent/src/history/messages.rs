//! Stored rows → chat messages.

use smallebot_application::ports::{ModelMessage, ModelPart, ModelToolCall};
use smallebot_core::entities::{HistoryRow, Message, Role, ToolCall};
use smallebot_core::ids::TurnId;
use smallebot_core::rules::truncation::truncate_tool_result;

use crate::config::ToolHistoryFormat;

/// The result sent for a tool call that never finished (the process stopped).
pub const INTERRUPTED_TOOL_RESULT: &str =
    "Error: this tool call did not finish (the turn was interrupted); its result is unknown.";

/// The result text of a stored call as sent: truncated to its tool's limit.
pub(crate) fn sent_result(call: &ToolCall, limit: &dyn Fn(&str) -> usize) -> String {
    match &call.result {
        Some(result) => truncate_tool_result(result, limit(&call.tool_name)).into_owned(),
        None => INTERRUPTED_TOOL_RESULT.to_owned(),
    }
}

/// The seed's inline line for one call: `[Tool: Name(args)] → result`.
fn inline_line(call: &ToolCall, limit: &dyn Fn(&str) -> usize) -> String {
    format!(
        "[Tool: {}({})] → {}",
        call.tool_name,
        call.arguments,
        sent_result(call, limit)
    )
}

/// Builds the chat messages from rows after the compression boundary (in `seq` order).
///
/// - replaced messages and reasoning are left out;
/// - an assistant message and the tool calls that follow it in the same turn form one
///   step: native `tool_calls` plus one `tool` message per call (always for
///   `current_turn`), or inline lines appended to the text for earlier turns when
///   `format` is [`ToolHistoryFormat::Inline`];
/// - every tool result is cut to `result_limit(tool name)` characters;
/// - a user message's attachments become `user_parts(message)` after its text.
#[must_use]
pub fn build_messages(
    rows: &[HistoryRow],
    current_turn: TurnId,
    format: ToolHistoryFormat,
    result_limit: &dyn Fn(&str) -> usize,
    user_parts: &dyn Fn(&Message) -> Vec<ModelPart>,
) -> Vec<ModelMessage> {
    let mut out = Vec::with_capacity(rows.len());
    let mut i = 0;
    while i < rows.len() {
        match &rows[i] {
            HistoryRow::ThinkBlock(_) => i += 1,
            HistoryRow::Message(m) if m.replaced_by.is_some() => i += 1,
            HistoryRow::Message(m) if m.role == Role::User => {
                let parts = if m.attachments.is_empty() {
                    Vec::new()
                } else {
                    user_parts(m)
                };
                out.push(ModelMessage::User {
                    content: m.content.clone(),
                    parts,
                });
                i += 1;
            }
            row => {
                // An assistant step: optional text, then its tool calls.
                let turn = row.turn_id();
                let text = match row {
                    HistoryRow::Message(m) => {
                        i += 1;
                        m.content.clone()
                    }
                    _ => String::new(),
                };
                let mut calls: Vec<&ToolCall> = Vec::new();
                while let Some(next) = rows.get(i) {
                    match next {
                        HistoryRow::ToolCall(call) if call.turn_id == turn => calls.push(call),
                        HistoryRow::ThinkBlock(b) if b.turn_id == turn => {}
                        _ => break,
                    }
                    i += 1;
                }
                push_step(
                    &mut out,
                    text,
                    &calls,
                    turn == current_turn,
                    format,
                    result_limit,
                );
            }
        }
    }
    out
}

fn push_step(
    out: &mut Vec<ModelMessage>,
    text: String,
    calls: &[&ToolCall],
    is_current_turn: bool,
    format: ToolHistoryFormat,
    limit: &dyn Fn(&str) -> usize,
) {
    if calls.is_empty() {
        if !text.is_empty() {
            out.push(ModelMessage::Assistant {
                content: text,
                tool_calls: Vec::new(),
            });
        }
        return;
    }
    if format == ToolHistoryFormat::Inline && !is_current_turn {
        let lines: Vec<String> = calls.iter().map(|c| inline_line(c, limit)).collect();
        let content = if text.is_empty() {
            lines.join("\n")
        } else {
            format!("{text}\n\n{}", lines.join("\n"))
        };
        out.push(ModelMessage::Assistant {
            content,
            tool_calls: Vec::new(),
        });
        return;
    }
    out.push(ModelMessage::Assistant {
        content: text,
        tool_calls: calls
            .iter()
            .map(|c| ModelToolCall {
                call_id: c.call_id.clone(),
                name: c.tool_name.clone(),
                arguments: c.arguments.clone(),
            })
            .collect(),
    });
    for call in calls {
        out.push(ModelMessage::Tool {
            call_id: call.call_id.clone(),
            content: sent_result(call, limit),
        });
    }
}

#[cfg(test)]
mod tests {
    use smallebot_core::entities::ToolCallStatus;
    use smallebot_core::ids::{ConversationId, ToolCallId};

    use super::*;

    fn call(turn: TurnId, seq: i64, tool: &str, result: &str) -> HistoryRow {
        HistoryRow::ToolCall(ToolCall {
            id: ToolCallId::new(),
            conversation_id: ConversationId::new(),
            turn_id: turn,
            seq,
            call_id: format!("c{seq}"),
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
    fn each_tool_result_is_cut_to_its_own_limit() {
        let turn = TurnId::new();
        let long = "y".repeat(5_000);
        let rows = [call(turn, 1, "Wide", &long), call(turn, 2, "Other", &long)];
        let limit = |tool: &str| if tool == "Wide" { 4_000 } else { 300 };
        let sent: Vec<usize> =
            build_messages(&rows, turn, ToolHistoryFormat::Native, &limit, &|_| {
                Vec::new()
            })
            .into_iter()
            .filter_map(|m| match m {
                ModelMessage::Tool { content, .. } => Some(content.chars().count()),
                _ => None,
            })
            .collect();
        assert_eq!(sent.len(), 2);
        assert!(sent[0] > 3_900 && sent[0] <= 4_100, "{sent:?}");
        assert!(sent[1] > 250 && sent[1] <= 400, "{sent:?}");
    }
}
