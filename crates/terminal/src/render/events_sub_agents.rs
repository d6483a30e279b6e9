//! The printer's sub-agent lines: the [`SubAgentBoard`] followed, drawn in place on a
//! styled terminal (kept under every other status line) or printed as plain lines.

use std::io::Write;

use smallebot_application::EventKind;

use super::EventPrinter;
use crate::render::markdown::terminal_size;
use crate::render::sub_agent_board::{Change, SubAgentBoard};

impl<W: Write> EventPrinter<W> {
    /// Whether sub-agent lines are redrawn in place (status lines styled for a
    /// terminal).
    fn live_agents(&self) -> bool {
        self.status_style().ansi && !self.json
    }

    /// Takes a sub-agent event (`true`), or leaves it (`false`).
    pub(super) fn sub_agent_event(&mut self, event: &EventKind) -> std::io::Result<bool> {
        let call_id = match event {
            EventKind::SubAgentStarted { call_id, .. }
            | EventKind::SubAgentToolCall { call_id, .. }
            | EventKind::SubAgentFinished { call_id, .. } => call_id.clone(),
            _ => return Ok(false),
        };
        let change = self.agents.observe(event);
        if change == Change::None {
            return Ok(true);
        }
        if self.live_agents() {
            self.end_reasoning()?;
            let style = self.status_style();
            let mut board = std::mem::take(&mut self.agents);
            // `side` ends any open answer line: the block starts on a line of its own.
            let drawn = match self.side() {
                Ok(side) => board.draw(side, style, terminal_size().width),
                Err(error) => Err(error),
            };
            self.agents = board;
            drawn?;
        } else if change != Change::Progressed
            && let Some(line) = self.agents.plain_line(&call_id)
        {
            let line = self.status_style().dim(&line);
            self.status_line(&line)?;
        }
        Ok(true)
    }

    /// Writes `line` on the status writer above the live sub-agent block, if one is
    /// drawn.
    pub(super) fn above_agents(&mut self, line: &str) -> std::io::Result<()> {
        let style = self.status_style();
        let live = self.agents.is_drawn();
        let mut board = std::mem::take(&mut self.agents);
        let written = match self.side() {
            Ok(side) => write_above(side, &mut board, line, live.then_some(style)),
            Err(error) => Err(error),
        };
        self.agents = board;
        written
    }
}

/// Wipes `board`'s block, writes `line`, and draws the block again under it (`redraw`:
/// its style, when it was drawn).
fn write_above(
    side: &mut dyn Write,
    board: &mut SubAgentBoard,
    line: &str,
    redraw: Option<crate::render::Style>,
) -> std::io::Result<()> {
    board.wipe(side)?;
    writeln!(side, "{line}")?;
    if let Some(style) = redraw {
        board.draw(side, style, terminal_size().width)?;
    }
    side.flush()
}
