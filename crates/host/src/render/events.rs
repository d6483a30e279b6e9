//! Printing pipeline events: human-readable for the terminal, or one JSON object per
//! line (`--json`).

use std::io::Write;

use smallebot_application::{Event, EventKind};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::rules::truncation::truncate_with_marker;

/// Characters of a tool result shown in the terminal.
const SHOWN_RESULT_CHARS: usize = 200;

/// Terminal styling (ANSI), off when output is not a terminal.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// Whether to emit ANSI escapes.
    pub ansi: bool,
}

impl Style {
    fn dim(self, text: &str) -> String {
        if self.ansi {
            format!("\x1b[2m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn bold(self, text: &str) -> String {
        if self.ansi {
            format!("\x1b[1m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

/// Formats a token count as `12.3k`.
pub fn tokens(n: u64) -> String {
    if n >= 1000 {
        format!("{:.1}k", n as f64 / 1000.0)
    } else {
        n.to_string()
    }
}

/// Writes events as they arrive.
pub struct EventPrinter<W: Write> {
    out: W,
    json: bool,
    style: Style,
    in_reasoning: bool,
    last_usage: Option<(u64, u64, f64, Option<u64>)>,
}

impl<W: Write> EventPrinter<W> {
    /// A printer writing to `out`.
    pub fn new(out: W, json: bool, style: Style) -> Self {
        Self {
            out,
            json,
            style,
            in_reasoning: false,
            last_usage: None,
        }
    }

    /// Whether ANSI styling (and so the spinner) is on.
    pub fn ansi(&self) -> bool {
        self.style.ansi && !self.json
    }

    /// The writer (for prompts between turns).
    pub fn out(&mut self) -> &mut W {
        &mut self.out
    }

    fn end_reasoning(&mut self) -> std::io::Result<()> {
        if self.in_reasoning {
            self.in_reasoning = false;
            writeln!(self.out)?;
        }
        Ok(())
    }

    /// Prints one event.
    ///
    /// # Errors
    /// Writing failed.
    pub fn print(&mut self, event: &Event) -> std::io::Result<()> {
        if self.json {
            let line = serde_json::to_string(event).map_err(std::io::Error::other)?;
            writeln!(self.out, "{line}")?;
            return self.out.flush();
        }
        let style = self.style;
        match &event.kind {
            EventKind::ReasoningDelta { text } => {
                if !self.in_reasoning {
                    self.in_reasoning = true;
                    write!(self.out, "{}", style.dim("thinking: "))?;
                }
                write!(self.out, "{}", style.dim(text))?;
            }
            EventKind::Retrying {
                attempt,
                max,
                reason,
                delay_ms,
            } => {
                self.end_reasoning()?;
                let line = format!(
                    "[retrying ({attempt}/{max}) in {:.1} s: {reason} — the partial answer above is discarded]",
                    *delay_ms as f64 / 1000.0
                );
                writeln!(self.out, "\n{}", style.dim(&line))?;
            }
            EventKind::TextDelta { text } => {
                self.end_reasoning()?;
                write!(self.out, "{text}")?;
            }
            EventKind::ToolCallStarted {
                tool_name,
                arguments,
                ..
            } => {
                self.end_reasoning()?;
                let args = truncate_with_marker(arguments, SHOWN_RESULT_CHARS, "…");
                writeln!(self.out, "\n{} {}({args})", style.bold("⚙"), tool_name)?;
            }
            EventKind::ToolCallCompleted {
                tool_name,
                status,
                result,
                ..
            } => {
                let first = result.lines().next().unwrap_or("");
                let shown = truncate_with_marker(first, SHOWN_RESULT_CHARS, "…");
                let more = if result.lines().nth(1).is_some() {
                    " …"
                } else {
                    ""
                };
                let mark = if *status == ToolCallStatus::Ok {
                    "✓"
                } else {
                    "✗"
                };
                writeln!(
                    self.out,
                    "  {} {}",
                    mark,
                    style.dim(&format!("{tool_name} [{}] {shown}{more}", status.as_str()))
                )?;
            }
            EventKind::CompressionStarted { .. } => {
                self.end_reasoning()?;
                writeln!(self.out, "{}", style.dim("Compressing context..."))?;
            }
            EventKind::CompressionCompleted {
                ok,
                detail,
                tokens_before,
                tokens_after,
                ..
            } => {
                let line = if *ok {
                    format!(
                        "context compressed: {} → {} tokens",
                        tokens(*tokens_before),
                        tokens(*tokens_after)
                    )
                } else {
                    format!("context compression failed: {detail}")
                };
                writeln!(self.out, "{}", style.dim(&line))?;
            }
            EventKind::ContextUsage {
                used,
                window,
                ratio,
                reported,
                ..
            } => self.last_usage = Some((*used, *window, *ratio, *reported)),
            EventKind::TaskListChanged { plan, .. } => {
                // One line while working; /tasks shows the whole plan.
                let progress = plan
                    .lines()
                    .find(|l| l.starts_with("Progress:"))
                    .unwrap_or("changed");
                writeln!(self.out, "  {}", style.dim(&format!("plan: {progress}")))?;
            }
            EventKind::TurnCompleted { .. } => {
                self.end_reasoning()?;
                writeln!(self.out)?;
                if let Some((used, window, ratio, reported)) = self.last_usage {
                    let provider = reported
                        .map(|r| format!(" · provider counted {}", tokens(r)))
                        .unwrap_or_default();
                    let line = format!(
                        "[context {} / {} tokens, {:.1}%{provider}]",
                        tokens(used),
                        tokens(window),
                        ratio * 100.0
                    );
                    writeln!(self.out, "{}", style.dim(&line))?;
                }
            }
            EventKind::TurnCancelled => {
                self.end_reasoning()?;
                writeln!(
                    self.out,
                    "\n{}",
                    style.dim("(cancelled — partial answer kept)")
                )?;
            }
            EventKind::TurnFailed { error, .. } => {
                self.end_reasoning()?;
                writeln!(self.out, "\nerror: {error}")?;
            }
            // TurnStarted, TitleChanged and kinds added later print nothing.
            _ => {}
        }
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallebot_core::ids::ConversationId;

    #[test]
    fn a_plan_change_prints_one_progress_line_and_json_keeps_it_whole() {
        let event = Event::new(
            ConversationId::new(),
            None,
            1,
            EventKind::TaskListChanged {
                plan: "Plan:\nProgress: 1/3 (33.3%)\n  1: [✓] a\n  2: [→] b".into(),
            },
        );
        let mut out = Vec::new();
        EventPrinter::new(&mut out, false, Style { ansi: false })
            .print(&event)
            .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  plan: Progress: 1/3 (33.3%)\n"
        );
        let mut out = Vec::new();
        EventPrinter::new(&mut out, true, Style { ansi: false })
            .print(&event)
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            json["plan"],
            "Plan:\nProgress: 1/3 (33.3%)\n  1: [✓] a\n  2: [→] b"
        );
    }
}
