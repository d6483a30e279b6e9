//! `/show N`: the Nth tool call of the last turn whole — its arguments and its result
//! as stored — where the stream showed it as one folded line; a file write's diff in
//! colour; the hooks that ran around it.

use std::io::Write;

use smallebot_core::entities::HistoryRow;

use super::Repl;
use crate::error::TerminalError;
use crate::render::hook_runs::hook_run_line;
use crate::render::{Style, tool_lines};

impl<W: Write> Repl<W> {
    /// `/show N`: the Nth (from 1) tool call of this conversation's last turn.
    pub(super) async fn show(&mut self, number: usize) -> Result<(), TerminalError> {
        let Some(conversation) = self.conversation else {
            return self.say("nothing to show: this conversation has no tool calls yet");
        };
        let rows = self.service.store().rows_after(conversation, 0).await?;
        let Some(last) = rows.last().map(HistoryRow::turn_id) else {
            return self.say("nothing to show: this conversation has no tool calls yet");
        };
        let calls: Vec<_> = rows
            .iter()
            .filter_map(|row| match row {
                HistoryRow::ToolCall(call) if call.turn_id == last => Some(call),
                _ => None,
            })
            .collect();
        let Some(call) = number.checked_sub(1).and_then(|at| calls.get(at)) else {
            let line = match calls.len() {
                0 => "the last turn called no tools".to_owned(),
                count => {
                    format!("the last turn made {count} tool call(s): /show 1 to /show {count}")
                }
            };
            return self.say(&line);
        };
        let arguments = serde_json::from_str::<serde_json::Value>(&call.arguments)
            .ok()
            .and_then(|v| serde_json::to_string_pretty(&v).ok())
            .unwrap_or_else(|| call.arguments.clone());
        let text = format!(
            "⚙ {} [{}]\narguments:\n{arguments}\nresult:",
            call.tool_name,
            call.status.as_str(),
        );
        self.say(&text)?;
        let style = Style {
            ansi: self.printer.ansi(),
        };
        let result = match call.result.as_deref() {
            Some(result) => tool_lines::shown_result(style, result),
            None => "(no result stored)".to_owned(),
        };
        writeln!(self.printer.out(), "{result}")?;
        // The hooks that ran around this call.
        let hooks: Vec<String> = self
            .service
            .store()
            .hook_runs(conversation)
            .await?
            .iter()
            .filter(|run| {
                run.turn_id == Some(last) && run.call_id.as_deref() == Some(&call.call_id)
            })
            .map(|run| format!("  {}", hook_run_line(run)))
            .collect();
        if !hooks.is_empty() {
            self.say(&format!("hooks:\n{}", hooks.join("\n")))?;
        }
        Ok(())
    }
}
