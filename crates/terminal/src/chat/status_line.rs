//! The status line under the stream: what the turn is doing while nothing else is
//! printed — waiting for the model, running a tool, retrying, compressing — with the
//! time it has taken. Only on a terminal: it is drawn in place (no line break), redrawn
//! as time passes, and wiped before anything else is printed, so it never reaches the
//! scrollback. It disappears while the answer (or reasoning) flows.

use std::io::Write;
use std::time::{Duration, Instant};

use smallebot_agent::tools::ExecuteCommand;
use smallebot_application::EventKind;
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_core::rules::tool_summary::{elapsed, key_argument};

use crate::render::Style;

/// What the turn is doing.
#[derive(Debug, Clone, PartialEq)]
enum Activity {
    /// Nothing to show (the answer flows, or the work ended).
    Hidden,
    /// The request is out; no answer yet.
    Waiting { since: Instant },
    /// A tool runs.
    Tool {
        name: String,
        detail: Option<String>,
        since: Instant,
    },
    /// A request failed and is sent again at `at`.
    Retrying {
        attempt: u32,
        max: u32,
        reason: String,
        at: Instant,
    },
    /// The context is being summarized; `then_wait`: a model request follows.
    Compressing { since: Instant, then_wait: bool },
}

/// The status line's state and whether it is on the screen.
#[derive(Debug)]
pub(super) struct StatusLine {
    activity: Activity,
    /// Drawn at all: only on a terminal.
    enabled: bool,
    style: Style,
    frame: usize,
    /// A line is on the screen now.
    drawn: bool,
    /// Set aside while the person is asked something (until the next event).
    paused: bool,
    /// Sub-agents of the turn working now.
    sub_agents: usize,
}

impl StatusLine {
    const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

    /// A status line for a turn (`waiting`: its request is on the way) or for other
    /// work (a compaction: nothing to show until it starts); drawn only when `enabled`.
    pub(super) fn new(enabled: bool, style: Style, waiting: bool, now: Instant) -> Self {
        let activity = if waiting {
            Activity::Waiting { since: now }
        } else {
            Activity::Hidden
        };
        Self {
            activity,
            enabled,
            style,
            frame: 0,
            drawn: false,
            paused: false,
            sub_agents: 0,
        }
    }

    /// Follows what `event` says the turn is doing now.
    pub(super) fn observe(&mut self, event: &EventKind, now: Instant) {
        self.paused = false;
        match event {
            EventKind::SubAgentStarted { .. } => self.sub_agents += 1,
            EventKind::SubAgentFinished { .. } => {
                self.sub_agents = self.sub_agents.saturating_sub(1);
            }
            EventKind::TurnStarted | EventKind::TurnCompleted { .. } => self.sub_agents = 0,
            EventKind::TurnCancelled | EventKind::TurnFailed { .. } => self.sub_agents = 0,
            _ => {}
        }
        self.activity = match event {
            EventKind::TextDelta { .. } | EventKind::ReasoningDelta { .. } => Activity::Hidden,
            EventKind::ToolCallStarted {
                tool_name,
                arguments,
                ..
            } => Activity::Tool {
                name: tool_name.clone(),
                detail: key_argument(arguments),
                since: now,
            },
            // Other calls of the step still run while sub-agents work.
            EventKind::ToolCallCompleted { .. } if self.sub_agents > 0 => return,
            EventKind::ToolCallCompleted { .. } => Activity::Waiting { since: now },
            EventKind::Retrying {
                attempt,
                max,
                reason,
                delay_ms,
            } => Activity::Retrying {
                attempt: *attempt,
                max: *max,
                reason: reason.clone(),
                at: now + Duration::from_millis(*delay_ms),
            },
            EventKind::CompressionStarted { .. } => Activity::Compressing {
                since: now,
                then_wait: !matches!(self.activity, Activity::Hidden),
            },
            EventKind::CompressionCompleted { .. } => match self.activity {
                Activity::Compressing {
                    then_wait: true, ..
                } => Activity::Waiting { since: now },
                _ => Activity::Hidden,
            },
            EventKind::TurnCompleted { .. }
            | EventKind::TurnCancelled
            | EventKind::TurnFailed { .. } => Activity::Hidden,
            _ => return,
        };
    }

    /// The line as it reads at `now` (no frame, no styling); `None` when hidden.
    fn text(&self, now: Instant) -> Option<String> {
        let since = |at: &Instant| elapsed(now.saturating_duration_since(*at));
        Some(match &self.activity {
            Activity::Hidden => return None,
            Activity::Waiting { since: at } => {
                format!("waiting for the model · {} · Ctrl+C cancels", since(at))
            }
            Activity::Tool {
                name,
                detail,
                since: at,
            } => {
                let detail = match detail {
                    Some(command) if name == ExecuteCommand::NAME => format!(" $ {command}"),
                    Some(argument) => format!(" {argument}"),
                    None => String::new(),
                };
                let agents = match self.sub_agents {
                    0 => String::new(),
                    1 => " · 1 sub-agent working".to_owned(),
                    n => format!(" · {n} sub-agents working"),
                };
                format!(
                    "running {name}{detail}{agents} · {} · Ctrl+C cancels",
                    since(at)
                )
            }
            Activity::Retrying {
                attempt,
                max,
                reason,
                at,
            } if now < *at => {
                let left = at.saturating_duration_since(now).as_secs_f64().ceil();
                format!("retrying ({attempt}/{max}) in {left:.0}s — {reason}")
            }
            Activity::Retrying {
                attempt, max, at, ..
            } => format!(
                "waiting for the model (attempt {attempt}/{max}) · {}",
                since(at)
            ),
            Activity::Compressing { since: at, .. } => {
                format!("compressing the context · {}", since(at))
            }
        })
    }

    /// Whether there is something to draw.
    pub(super) fn visible(&self) -> bool {
        self.enabled && !self.paused && self.activity != Activity::Hidden
    }

    /// Draws the line in place (at the start of the current line, which is empty:
    /// everything printed before it ended its line), cut to `width` columns so it
    /// never wraps.
    pub(super) fn draw(
        &mut self,
        out: &mut impl Write,
        now: Instant,
        width: usize,
    ) -> std::io::Result<()> {
        if !self.visible() {
            return self.wipe(out);
        }
        let Some(text) = self.text(now) else {
            return Ok(());
        };
        self.frame = (self.frame + 1) % Self::FRAMES.len();
        let line = format!("{} {}", Self::FRAMES[self.frame], escape_controls(&text));
        let shown: String = line.chars().take(width.saturating_sub(1).max(1)).collect();
        write!(out, "\r\x1b[2K{}", self.style.dim(&shown))?;
        self.drawn = true;
        out.flush()
    }

    /// Clears the line if it is on the screen.
    pub(super) fn wipe(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        if self.drawn {
            self.drawn = false;
            write!(out, "\r\x1b[2K")?;
            out.flush()?;
        }
        Ok(())
    }

    /// Clears the line and keeps it away until the next event (the person is asked
    /// something).
    pub(super) fn pause(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        self.paused = true;
        self.wipe(out)
    }
}

/// The terminal's width in columns (80 when it cannot be asked).
pub(super) fn terminal_width() -> usize {
    rustix::termios::tcgetwinsize(rustix::stdio::stdout())
        .ok()
        .map(|size| usize::from(size.ws_col))
        .filter(|columns| *columns > 0)
        .unwrap_or(80)
}

#[cfg(test)]
#[path = "status_line_tests.rs"]
mod tests;
