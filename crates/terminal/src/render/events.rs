//! Printing pipeline events: human-readable for the terminal, or one JSON object per
//! line (`--json`: each the protocol's event, as the web server streams it).

use std::io::Write;

use smallebot_application::{Event, EventKind};
use smallebot_core::rules::budget::is_budget_stop;
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_core::tasks::progress_line;

use smallebot_term_markdown::Highlighter;

use super::Style;
use super::event_lines::{Usage, compression_line, retry_line};
use super::markdown::{AnswerView, LiveAnswer, terminal_size};
use super::plain_wrap::PlainWrap;
use super::sub_agent_board::SubAgentBoard;
use super::tool_lines::ToolClock;

/// Writes events as they arrive: the answer to its writer; status lines (reasoning,
/// tool calls, compression, usage, errors) to the same writer or, with
/// [`EventPrinter::status_to`], to another (`run` keeps standard output for the answer).
/// Text from the model and tools is printed through `escape_controls`.
pub struct EventPrinter<W: Write> {
    out: W,
    status: Option<(Box<dyn Write + Send>, Style)>,
    json: bool,
    style: Style,
    in_reasoning: bool,
    /// The answer printed so far does not end with a line break.
    answer_open: bool,
    /// Renders the answer's Markdown live (on a terminal with colours only).
    markdown: Option<LiveAnswer>,
    /// Wraps the plain answer at word boundaries (on a terminal without colours).
    wrap: Option<PlainWrap>,
    /// Highlights code in answers (grammars loaded on the first code block).
    highlighter: smallebot_term_markdown::Highlighter,
    /// End an open answer line before a status line even when status lines go to
    /// another writer (both show on one terminal).
    shared_screen: bool,
    last_usage: Option<Usage>,
    /// With [`EventPrinter::hold_attempts`]: the answer text of the attempt still
    /// streaming, printed once the attempt has finished.
    held: Option<String>,
    /// The tool calls of the turn: their numbers (for `/show N`) and start times.
    tools: ToolClock,
    /// Whether a finished tool call's line names `/show N` (the chat's command).
    show_hint: bool,
    /// A finished tool call's result is printed whole under its line (`/verbose on`).
    verbose: bool,
    /// The model attempt in flight has streamed answer text (shown, or held): a retry
    /// discards it.
    attempt_text: bool,
    /// Where the answer stands between the steps of a turn, so that on a writer of its
    /// own (`run`'s standard output) a step's text after tool calls starts a paragraph
    /// instead of running on from the text before them.
    step_text: StepText,
    /// The turn's sub-agents, one line each.
    pub(super) agents: SubAgentBoard,
}

/// The answer's text between the steps of a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum StepText {
    /// No text yet in this turn, or none since the last paragraph break.
    #[default]
    None,
    /// This step printed text.
    Printed,
    /// Tool calls came after printed text: the next text starts a paragraph.
    AfterTools,
}

impl<W: Write> EventPrinter<W> {
    /// A printer writing everything to `out`.
    pub fn new(out: W, json: bool, style: Style) -> Self {
        let highlighter = Highlighter::default();
        Self {
            out,
            status: None,
            json,
            style,
            in_reasoning: false,
            answer_open: false,
            markdown: (style.ansi && !json).then(|| LiveAnswer::new(highlighter.clone())),
            wrap: None,
            highlighter,
            shared_screen: false,
            last_usage: None,
            held: None,
            tools: ToolClock::default(),
            show_hint: true,
            attempt_text: false,
            step_text: StepText::None,
            verbose: false,
            agents: SubAgentBoard::default(),
        }
    }

    /// Whether to hold each model attempt's answer text until the attempt has finished
    /// (its step calls tools, or the turn ends) instead of printing it as it streams. A
    /// stream cut and retried then leaves nothing of the discarded attempt in the
    /// output: what is printed is exactly what is stored (`run` with standard output
    /// not a terminal, `x=$(smallebot run …)`).
    #[must_use]
    pub fn hold_attempts(mut self, hold: bool) -> Self {
        self.held = hold.then(String::new);
        self
    }

    /// Whether the answer goes to a terminal: without colours (where it is not rendered
    /// as Markdown) its text is then wrapped at word boundaries to the terminal's width.
    /// Off a terminal it is printed as it came.
    #[must_use]
    pub fn wrap_on_terminal(mut self, terminal: bool) -> Self {
        self.wrap = (terminal && self.markdown.is_none() && !self.json).then(PlainWrap::default);
        self
    }

    /// Whether a finished tool call's line ends with `/show N` (where that command
    /// exists: the chat).
    #[must_use]
    pub fn show_hint(mut self, shown: bool) -> Self {
        self.show_hint = shown;
        self
    }

    /// The same printer writing status lines to `status`, styled with `style`; the
    /// answer (and `--json` lines) stay on the first writer.
    #[must_use]
    pub fn status_to(mut self, status: Box<dyn Write + Send>, style: Style) -> Self {
        self.status = Some((status, style));
        self
    }

    /// Whether both writers show on one screen (standard output is a terminal): then an
    /// open answer line is ended before a status line, as with one writer.
    #[must_use]
    pub fn on_one_screen(mut self, shared: bool) -> Self {
        self.shared_screen = shared;
        self
    }

    /// Whether ANSI styling (and so the spinner) is on.
    pub fn ansi(&self) -> bool {
        self.style.ansi && !self.json
    }

    /// How stored answers are shown in this printer's style (the transcript of a
    /// reopened conversation), sharing its code highlighter.
    pub fn answer_view(&self) -> AnswerView {
        AnswerView::new(self.style, self.highlighter.clone())
    }

    /// The writer (for prompts between turns).
    pub fn out(&mut self) -> &mut W {
        &mut self.out
    }

    /// Whether a finished tool call's result is printed whole under its line (a file
    /// write's diff in colour) instead of folded.
    pub fn set_verbose(&mut self, verbose: bool) {
        self.verbose = verbose;
    }

    /// Whether finished tool calls' results are printed whole.
    pub fn verbose(&self) -> bool {
        self.verbose
    }

    /// The terminal was resized: the answer's open lines are laid out again at its new
    /// width (lines already committed are not drawn again).
    ///
    /// # Errors
    /// Writing failed.
    pub fn resized(&mut self) -> std::io::Result<()> {
        if let Some(markdown) = self.markdown.as_mut() {
            let drawn = markdown.resize();
            write!(self.out, "{drawn}")?;
            self.out.flush()?;
        }
        Ok(())
    }

    /// The style of status lines.
    pub(super) fn status_style(&self) -> Style {
        self.status.as_ref().map_or(self.style, |(_, style)| *style)
    }

    /// Prints the answer's open line (Markdown waiting for its end) and ends it.
    fn end_answer_line(&mut self) -> std::io::Result<()> {
        if let Some(markdown) = self.markdown.as_mut() {
            // Ends at the start of a line.
            let rest = markdown.finish();
            write!(self.out, "{rest}")?;
        }
        if let Some(wrap) = self.wrap.as_mut() {
            let rest = wrap.finish(terminal_size().width);
            write!(self.out, "{rest}")?;
        }
        if self.answer_open {
            self.answer_open = false;
            writeln!(self.out)?;
        }
        Ok(())
    }

    /// Where status lines go; on a shared writer an open answer line is ended first.
    pub(super) fn side(&mut self) -> std::io::Result<&mut dyn Write> {
        if self.status.is_none() || self.shared_screen {
            self.end_answer_line()?;
            self.out.flush()?;
        }
        Ok(match self.status.as_mut() {
            Some((status, _)) => status.as_mut(),
            None => &mut self.out,
        })
    }

    /// Writes one status line (above the sub-agents' live lines, if they are drawn).
    pub(super) fn status_line(&mut self, line: &str) -> std::io::Result<()> {
        self.end_reasoning()?;
        self.above_agents(line)
    }

    pub(super) fn end_reasoning(&mut self) -> std::io::Result<()> {
        if self.in_reasoning {
            self.in_reasoning = false;
            let side = self.side()?;
            writeln!(side)?;
        }
        Ok(())
    }

    /// Prints a piece of the answer.
    fn answer_text(&mut self, text: &str) -> std::io::Result<()> {
        self.end_reasoning()?;
        // Text of the parent comes once its sub-agents are done: their lines stay.
        self.agents.forget();
        let own_writer = self.status.is_some() && !self.shared_screen;
        if self.step_text == StepText::AfterTools && own_writer && !text.is_empty() {
            // The tool lines went elsewhere: a blank line keeps the steps' texts apart.
            self.end_answer_line()?;
            writeln!(self.out)?;
        }
        if !text.is_empty() {
            self.step_text = StepText::Printed;
        }
        if let Some(markdown) = self.markdown.as_mut() {
            let drawn = markdown.push(text);
            write!(self.out, "{drawn}")?;
        } else {
            if !text.is_empty() {
                self.answer_open = !text.ends_with('\n');
            }
            let text = escape_controls(text);
            match self.wrap.as_mut() {
                Some(wrap) => write!(self.out, "{}", wrap.push(&text, terminal_size().width))?,
                None => write!(self.out, "{text}")?,
            }
        }
        Ok(())
    }

    /// Prints one event.
    ///
    /// # Errors
    /// Writing failed.
    pub fn print(&mut self, event: &Event) -> std::io::Result<()> {
        if self.json {
            // The web stream's wire form (docs/protocol.md).
            let wire = event.clone().into_wire();
            let line = serde_json::to_string(&wire).map_err(std::io::Error::other)?;
            writeln!(self.out, "{line}")?;
            return self.out.flush();
        }
        self.note_attempt(&event.kind);
        if self.hold(event)? || self.sub_agent_event(&event.kind)? {
            return self.out.flush();
        }
        let style = self.status_style();
        match &event.kind {
            EventKind::ReasoningDelta { text } => {
                self.agents.forget();
                let start = !self.in_reasoning;
                self.in_reasoning = true;
                let side = self.side()?;
                if start {
                    write!(side, "{}", style.dim("thinking: "))?;
                }
                write!(side, "{}", style.dim(&escape_controls(text)))?;
                side.flush()?;
            }
            EventKind::Retrying {
                attempt,
                max,
                reason,
                delay_ms,
            } => {
                // Only text that came is discarded; held attempts never showed it.
                let discarded =
                    std::mem::take(&mut self.attempt_text).then_some(self.held.is_none());
                let line = retry_line((*attempt, *max), *delay_ms, reason, discarded);
                self.status_line(&style.dim(&line))?;
            }
            EventKind::TextDelta { text } => self.answer_text(text)?,
            EventKind::ToolCallStarted {
                call_id,
                tool_name,
                arguments,
            } => {
                if self.step_text == StepText::Printed {
                    self.step_text = StepText::AfterTools;
                }
                self.tools.started(call_id);
                self.status_line(&super::tool_lines::started(style, tool_name, arguments))?;
            }
            EventKind::ToolCallCompleted {
                call_id,
                tool_name,
                status,
                result,
            } => {
                let (number, took) = self.tools.completed(call_id);
                let number = self.show_hint.then_some(number);
                let lines =
                    super::tool_lines::completed(style, number, tool_name, *status, result, took);
                for line in lines {
                    self.status_line(&line)?;
                }
                if self.verbose && !result.is_empty() {
                    self.status_line(&super::tool_lines::shown_result(style, result))?;
                }
            }
            EventKind::TurnStarted => {
                self.agents.forget();
                self.tools = ToolClock::default();
                self.step_text = StepText::None;
            }
            EventKind::CompressionStarted { .. } => {
                self.status_line(&style.dim("Compressing context..."))?;
            }
            EventKind::CompressionCompleted {
                ok,
                detail,
                tokens_before,
                tokens_after,
                ..
            } => {
                let line = compression_line(style, *ok, detail, (*tokens_before, *tokens_after));
                self.status_line(&line)?;
            }
            EventKind::ContextUsage {
                used,
                window,
                ratio,
                exact,
                reported,
                cached,
                ..
            } => {
                self.last_usage = Some(Usage {
                    used: *used,
                    window: *window,
                    ratio: *ratio,
                    exact: *exact,
                    reported: *reported,
                    cached: *cached,
                });
            }
            EventKind::TaskListChanged { plan, .. } => {
                // One line while working; /tasks shows the whole plan.
                let (done, total) = plan.progress();
                let line = format!("  plan: {}", progress_line(done, total));
                self.status_line(&style.dim(&line))?;
            }
            EventKind::TurnCompleted { cut, .. } => {
                self.end_reasoning()?;
                self.end_answer_line()?;
                if let Some(cut) = cut {
                    // Never silently final: stderr in `run`, under the answer in chat.
                    let line = format!("({})", super::event_lines::cut_mark(*cut));
                    self.status_line(&style.yellow(&line))?;
                }
                if let Some(usage) = self.last_usage {
                    self.status_line(&style.dim(&usage.line()))?;
                }
            }
            EventKind::Warning { message } => {
                let line = format!("warning: {}", escape_controls(message));
                self.status_line(&style.yellow(&line))?;
            }
            EventKind::HookWarning { message, .. } => {
                let line = format!("hook: {}", escape_controls(message));
                self.status_line(&style.dim(&line))?;
            }
            EventKind::TurnCancelled => {
                self.end_answer_line()?;
                self.status_line(&style.dim("(cancelled — partial answer kept)"))?;
            }
            EventKind::TurnFailed { error, .. } => {
                self.end_answer_line()?;
                self.status_line(&style.red(&format!("error: {}", escape_controls(error))))?;
                let how = if is_budget_stop(error) {
                    "was stopped by a budget"
                } else {
                    "ended failed"
                };
                let line = format!(
                    "error: the turn {how} (conversation {})",
                    event.conversation_id
                );
                self.status_line(&style.red(&line))?;
            }
            // TitleChanged and kinds added later print nothing.
            _ => {}
        }
        self.out.flush()
    }
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "events_output_tests.rs"]
mod output_tests;

#[path = "events_attempts.rs"]
mod attempts;

#[path = "events_sub_agents.rs"]
mod agent_lines;
