//! The running sub-agents of a turn, one line each under their `Delegate` calls: agent,
//! task in a few words, the tool it runs and how many it has called, then how it ended.
//! On a terminal with styling the lines are a live block redrawn in place as the
//! sub-agents work (wiped before any other line is printed, drawn again under it) and
//! left in the scrollback once every sub-agent has finished; elsewhere each sub-agent
//! prints a line when it starts and one when it ends.

use std::io::Write;

use smallebot_application::events::{EventKind, SubAgentOutcome, ToolCallStatus};
use smallebot_core::rules::terminal_text::escape_line;
use unicode_width::UnicodeWidthChar;

use super::Style;

/// Characters of a failure's reason on its line.
const SHOWN_ERROR_CHARS: usize = 120;

/// How a sub-agent stands.
#[derive(Debug, Clone, PartialEq)]
enum State {
    /// Working; the tool it runs, if one runs now.
    Running(Option<String>),
    /// Ended; the reason when it failed.
    Ended(SubAgentOutcome, Option<String>),
}

/// One sub-agent's line.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    call_id: String,
    agent: String,
    description: String,
    tool_calls: u32,
    state: State,
}

/// What an event changed on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    /// Nothing (not a sub-agent event, or one for a call the board never saw start).
    None,
    /// A sub-agent started.
    Started,
    /// A running sub-agent's tool changed.
    Progressed,
    /// A sub-agent ended.
    Ended,
}

/// The sub-agents of the running turn and how many of their lines are on the screen.
#[derive(Debug, Default)]
pub(super) struct SubAgentBoard {
    rows: Vec<Row>,
    /// Lines of the live block on the screen now (the cursor is under them).
    drawn: usize,
}

impl SubAgentBoard {
    /// Follows `event`; says what it changed.
    pub(super) fn observe(&mut self, event: &EventKind) -> Change {
        match event {
            EventKind::SubAgentStarted {
                call_id,
                agent,
                description,
                ..
            } => {
                self.rows.retain(|r| &r.call_id != call_id);
                self.rows.push(Row {
                    call_id: call_id.clone(),
                    agent: agent.clone(),
                    description: description.clone(),
                    tool_calls: 0,
                    state: State::Running(None),
                });
                Change::Started
            }
            EventKind::SubAgentToolCall {
                call_id,
                tool_name,
                status,
                tool_calls,
                ..
            } => match self.row(call_id) {
                Some(row) => {
                    row.tool_calls = *tool_calls;
                    let running = *status == ToolCallStatus::Running;
                    row.state = State::Running(running.then(|| tool_name.clone()));
                    Change::Progressed
                }
                None => Change::None,
            },
            EventKind::SubAgentFinished {
                call_id,
                outcome,
                error,
                tool_calls,
                ..
            } => match self.row(call_id) {
                Some(row) => {
                    row.tool_calls = *tool_calls;
                    row.state = State::Ended(*outcome, error.clone());
                    Change::Ended
                }
                None => Change::None,
            },
            _ => Change::None,
        }
    }

    fn row(&mut self, call_id: &str) -> Option<&mut Row> {
        self.rows.iter_mut().find(|r| r.call_id == call_id)
    }

    /// Whether a live block is on the screen.
    pub(super) fn is_drawn(&self) -> bool {
        self.drawn > 0
    }

    /// Takes the live block off the screen (the cursor goes back to where it began).
    pub(super) fn wipe(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if self.drawn > 0 {
            write!(out, "\x1b[{}F\x1b[J", self.drawn)?;
            self.drawn = 0;
        }
        Ok(())
    }

    /// Draws the live block (each line cut to `width` columns so none wraps); once
    /// every sub-agent has ended the lines stay as they are and the board starts empty.
    pub(super) fn draw(
        &mut self,
        out: &mut dyn Write,
        style: Style,
        width: usize,
    ) -> std::io::Result<()> {
        self.wipe(out)?;
        for row in &self.rows {
            writeln!(out, "{}", styled(style, row, &cut(&line(row), width)))?;
        }
        if self
            .rows
            .iter()
            .all(|r| matches!(r.state, State::Ended(..)))
        {
            self.rows.clear();
        } else {
            self.drawn = self.rows.len();
        }
        out.flush()
    }

    /// The line of `call_id`'s sub-agent as it stands (for a writer that is no
    /// terminal: printed once when it starts and once when it ends); forgets it once
    /// ended.
    pub(super) fn plain_line(&mut self, call_id: &str) -> Option<String> {
        let at = self.rows.iter().position(|r| r.call_id == call_id)?;
        let text = line(&self.rows[at]);
        if matches!(self.rows[at].state, State::Ended(..)) {
            self.rows.remove(at);
        }
        Some(text)
    }

    /// Leaves whatever is on the screen in the scrollback and forgets every sub-agent
    /// (the turn ended).
    pub(super) fn forget(&mut self) {
        self.rows.clear();
        self.drawn = 0;
    }

    /// How many sub-agents are working now.
    #[cfg(test)]
    pub(super) fn running(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r.state, State::Running(_)))
            .count()
    }
}

/// `  ⋯ agent · description · running Tool · 2 tool calls`, `  ✓ agent · description ·
/// done · 2 tool calls`, `  ✗ agent · description · failed: reason · 0 tool calls`.
fn line(row: &Row) -> String {
    let calls = match row.tool_calls {
        1 => "1 tool call".to_owned(),
        n => format!("{n} tool calls"),
    };
    let (mark, state) = match &row.state {
        State::Running(Some(tool)) => ("⋯", format!("running {}", escape_line(tool))),
        State::Running(None) if row.tool_calls == 0 => ("⋯", "started".to_owned()),
        State::Running(None) => ("⋯", "thinking".to_owned()),
        State::Ended(SubAgentOutcome::Completed, _) => ("✓", "done".to_owned()),
        State::Ended(SubAgentOutcome::Cancelled, _) => ("✗", "cancelled".to_owned()),
        State::Ended(_, error) => {
            let reason = error.as_deref().unwrap_or("no reason given");
            let first = reason.lines().next().unwrap_or_default();
            let shown: String = escape_line(first).chars().take(SHOWN_ERROR_CHARS).collect();
            ("✗", format!("failed: {shown}"))
        }
    };
    let description = escape_line(row.description.trim());
    let description = if description.is_empty() {
        String::new()
    } else {
        format!(" · {description}")
    };
    format!(
        "  {mark} {}{description} · {state} · {calls}",
        escape_line(&row.agent)
    )
}

fn styled(style: Style, row: &Row, text: &str) -> String {
    match row.state {
        State::Running(_) => style.dim(text),
        State::Ended(SubAgentOutcome::Completed, _) => text.to_owned(),
        State::Ended(..) => style.red(text),
    }
}

/// `text` cut to fewer than `width` columns (a line that filled the row would wrap on
/// some terminals and break the count of lines to redraw).
fn cut(text: &str, width: usize) -> String {
    let room = width.saturating_sub(1).max(1);
    let mut used = 0;
    let mut kept = String::new();
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        kept.push(c);
    }
    kept
}

#[cfg(test)]
#[path = "sub_agent_board_tests.rs"]
mod tests;
