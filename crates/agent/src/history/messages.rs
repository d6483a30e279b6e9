//! Stored rows → chat messages.

use smallebot_application::ports::{ModelMessage, ModelToolCall};
use smallebot_core::entities::{HistoryRow, Role, ToolCall};
use smallebot_core::ids::TurnId;
use smallebot_core::rules::truncation::truncate_tool_result;

use crate::config::ToolHistoryFormat;

/// The result sent for a tool call that never finished (the process stopped).
pub const INTERRUPTED_TOOL_RESULT: &str =
    "Error: this tool call did not finish (the turn was interrupted); its result is unknown.";

/// The result text of a stored call as sent: truncated to `max_chars`.
pub(crate) fn sent_result(call: &ToolCall, max_chars: usize) -> String {
    match &call.result {
        Some(result) => truncate_tool_result(result, max_chars).into_owned(),
        None => INTERRUPTED_TOOL_RESULT.to_owned(),
    }
}

/// The seed's inline line for one call: `[Tool: Name(args)] → result`.
fn inline_line(call: &ToolCall, max_chars: usize) -> String {
    format!(
        "[Tool: {}({})] → {}",
        call.tool_name,
        call.arguments,
        sent_result(call, max_chars)
    )
}

/// Builds the chat messages from rows after the compression boundary (in `seq` order).
///
/// - replaced messages and reasoning are left out;
/// - an assistant message and the tool calls that follow it in the same turn form one
///   step: native `tool_calls` plus one `tool` message per call (always for
///   `current_turn`), or inline lines appended to the text for earlier turns when
///   `format` is [`ToolHistoryFormat::Inline`];
/// - every tool result is cut to `max_result_chars`.
#[must_use]
pub fn build_messages(
    rows: &[HistoryRow],
    current_turn: TurnId,
    format: ToolHistoryFormat,
    max_result_chars: usize,
) -> Vec<ModelMessage> {
    let mut out = Vec::with_capacity(rows.len());
    let mut i = 0;
    while i < rows.len() {
        match &rows[i] {
            HistoryRow::ThinkBlock(_) => i += 1,
            HistoryRow::Message(m) if m.replaced_by.is_some() => i += 1,
            HistoryRow::Message(m) if m.role == Role::User => {
                out.push(ModelMessage::User {
                    content: m.content.clone(),
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
                    max_result_chars,
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
    max_chars: usize,
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
        let lines: Vec<String> = calls.iter().map(|c| inline_line(c, max_chars)).collect();
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
            content: sent_result(call, max_chars),
        });
    }
}
