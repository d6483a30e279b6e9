//! The chat loop: read a line, run a turn while streaming its events, repeat.
//!
//! Input is not read while a turn (or a compression) runs, so nothing typed is lost
//! or sent into a busy conversation — except one answer line when a command needs the
//! person's confirmation (see [`super::confirm`]).

use std::io::Write;
use std::sync::Arc;

use smallebot_agent::tools;
use smallebot_application::{ConversationService, EventKind, SendOptions};
use smallebot_core::entities::{SearchQuery, SearchScope};
use smallebot_core::ids::ConversationId;
use smallebot_core::rules::terminal_text::escape_controls;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, Lines};
use tokio::sync::mpsc;

use super::confirm::{Asked, ConfirmRequest, ask};
use super::slash::{HELP, Slash, parse_slash};
use crate::error::HostError;
use crate::render::{EventPrinter, conversation_line, tokens};

/// The REPL's state.
pub struct Repl<W: Write> {
    service: Arc<ConversationService>,
    user: String,
    conversation: ConversationId,
    printer: EventPrinter<W>,
    interrupts: mpsc::UnboundedReceiver<()>,
    confirmations: Option<mpsc::Receiver<ConfirmRequest>>,
}

enum Next {
    Continue,
    Quit,
}

impl<W: Write> Repl<W> {
    /// A REPL on `conversation`; `interrupts` delivers Ctrl+C presses.
    pub fn new(
        service: Arc<ConversationService>,
        user: String,
        conversation: ConversationId,
        printer: EventPrinter<W>,
        interrupts: mpsc::UnboundedReceiver<()>,
    ) -> Self {
        Self {
            service,
            user,
            conversation,
            printer,
            interrupts,
            confirmations: None,
        }
    }

    /// Answers command confirmations from `requests` (see `TerminalConfirmer`) while a
    /// turn runs, reading the answer from the REPL's input.
    #[must_use]
    pub fn with_confirmations(mut self, requests: mpsc::Receiver<ConfirmRequest>) -> Self {
        self.confirmations = Some(requests);
        self
    }

    /// Prints a line; what it quotes from outside (titles, search hits, the plan) is
    /// printed with its control characters made visible.
    fn say(&mut self, text: &str) -> Result<(), HostError> {
        writeln!(self.printer.out(), "{}", escape_controls(text))?;
        Ok(())
    }

    /// Runs until /quit, end of input, or two Ctrl+C at the prompt.
    ///
    /// # Errors
    /// Terminal I/O failures and storage failures.
    pub async fn run<R: AsyncBufRead + Unpin>(&mut self, input: R) -> Result<(), HostError> {
        let mut lines: Lines<R> = input.lines();
        let mut exit_armed = false;
        loop {
            write!(self.printer.out(), "› ")?;
            self.printer.out().flush()?;
            let line = tokio::select! {
                line = lines.next_line() => line?,
                Some(()) = self.interrupts.recv() => {
                    if exit_armed {
                        self.say("")?;
                        return Ok(());
                    }
                    exit_armed = true;
                    self.say("\n(press Ctrl+C again to exit, or type /quit)")?;
                    continue;
                }
            };
            exit_armed = false;
            let Some(line) = line else {
                self.say("")?;
                return Ok(());
            };
            let next = match parse_slash(&line) {
                Some(Ok(command)) => self.command(command, &mut lines).await?,
                Some(Err(message)) => {
                    self.say(&message)?;
                    Next::Continue
                }
                None if line.trim().is_empty() => Next::Continue,
                None => {
                    self.turn(line, &mut lines).await?;
                    Next::Continue
                }
            };
            if let Next::Quit = next {
                return Ok(());
            }
        }
    }

    async fn command<R: AsyncBufRead + Unpin>(
        &mut self,
        command: Slash,
        lines: &mut Lines<R>,
    ) -> Result<Next, HostError> {
        match command {
            Slash::Quit => return Ok(Next::Quit),
            Slash::Help => self.say(HELP)?,
            Slash::New => {
                let c = self.service.create_conversation(&self.user).await?;
                self.conversation = c.id;
                self.say(&format!("new conversation {}", c.id))?;
            }
            Slash::List => {
                let list = self
                    .service
                    .store()
                    .list_conversations(Some(&self.user))
                    .await?;
                for c in &list {
                    let mark = if c.id == self.conversation { "*" } else { " " };
                    let line = format!("{mark} {}", conversation_line(c));
                    self.say(&line)?;
                }
            }
            Slash::Switch(prefix) => {
                let list = self
                    .service
                    .store()
                    .list_conversations(Some(&self.user))
                    .await?;
                let matches: Vec<_> = list
                    .iter()
                    .filter(|c| c.id.to_string().starts_with(prefix.as_str()))
                    .collect();
                match matches.as_slice() {
                    [one] => {
                        self.conversation = one.id;
                        let text = format!("switched to {} — {}", one.id, one.title);
                        self.say(&text)?;
                    }
                    [] => self.say(&format!(
                        "no conversation of yours starts with '{prefix}' (see /list)"
                    ))?,
                    _ => self.say(&format!(
                        "'{prefix}' matches {} conversations; type more of the id",
                        matches.len()
                    ))?,
                }
            }
            Slash::Compact(focus) => self.compact(focus, lines).await?,
            Slash::Search(text) => {
                let query = SearchQuery {
                    text,
                    scope: SearchScope::User(self.user.clone()),
                    since: None,
                    limit: tools::DEFAULT_MAX_RESULTS,
                };
                let store = Arc::clone(self.service.store());
                let found = tools::search_for_people(store.as_ref(), &query).await?;
                self.say(&found)?;
            }
            Slash::Tasks => {
                let plan = match self.service.plan() {
                    Some(plan) => plan.plan_text(self.conversation).await,
                    None => None,
                };
                self.say(plan.as_deref().unwrap_or("No tasks yet."))?;
            }
            Slash::Usage => {
                let estimate = self.service.context_estimate(self.conversation).await?;
                let text = format!(
                    "context: {} of {} tokens ({:.1}%), compression at {:.0}%",
                    tokens(estimate.used),
                    tokens(estimate.window),
                    estimate.ratio() * 100.0,
                    self.service.settings().compression_threshold * 100.0
                );
                self.say(&text)?;
            }
        }
        Ok(Next::Continue)
    }

    async fn turn<R: AsyncBufRead + Unpin>(
        &mut self,
        text: String,
        lines: &mut Lines<R>,
    ) -> Result<(), HostError> {
        let conversation = self.conversation;
        let service = Arc::clone(&self.service);
        let task = async move {
            service
                .send(conversation, &text, SendOptions::default())
                .await
        };
        match self.drive(task, lines).await? {
            Ok(outcome) if outcome.first_turn => {
                // Title the conversation in the background, once, after its first turn.
                let service = Arc::clone(&self.service);
                tokio::spawn(async move { service.generate_title(conversation).await });
            }
            Ok(_) => {}
            Err(err) => self.say(&format!("error: {err}"))?,
        }
        Ok(())
    }

    async fn compact<R: AsyncBufRead + Unpin>(
        &mut self,
        focus: Option<String>,
        lines: &mut Lines<R>,
    ) -> Result<(), HostError> {
        let conversation = self.conversation;
        let service = Arc::clone(&self.service);
        let task = async move { service.compact(conversation, focus.as_deref()).await };
        match self.drive(task, lines).await? {
            Ok(report) if !report.ok => self.say(&report.detail)?,
            Ok(_) => {}
            Err(err) => self.say(&format!("error: {err}"))?,
        }
        Ok(())
    }

    /// Runs `task` while printing this conversation's events; Ctrl+C cancels the turn.
    /// Input is not read meanwhile, except to answer a command confirmation. A spinner
    /// turns while a compression runs.
    async fn drive<T: Send + 'static, R: AsyncBufRead + Unpin>(
        &mut self,
        task: impl std::future::Future<Output = T> + Send + 'static,
        lines: &mut Lines<R>,
    ) -> Result<T, HostError> {
        let conversation = self.conversation;
        let mut events = self.service.subscribe(conversation);
        let mut handle = tokio::spawn(task);
        let mut spinner = Spinner::default();
        let mut tick = tokio::time::interval(std::time::Duration::from_millis(120));
        let result = loop {
            tokio::select! {
                Some(event) = events.recv() => {
                    spinner.observe(&event.kind);
                    self.printer.print(&event)?;
                }
                joined = &mut handle => {
                    while let Some(event) = events.try_recv() {
                        self.printer.print(&event)?;
                    }
                    break joined;
                }
                Some(()) = self.interrupts.recv() => {
                    self.service.cancel(conversation);
                }
                Some(request) = next_confirmation(&mut self.confirmations) => {
                    let asked = ask(request, lines, self.printer.out(), &mut self.interrupts).await?;
                    if asked == Asked::Interrupted {
                        self.service.cancel(conversation);
                    }
                }
                _ = tick.tick(), if spinner.active && self.printer.ansi() => {
                    let frame = spinner.next_frame();
                    write!(self.printer.out(), "\r{frame} Compressing context...")?;
                    self.printer.out().flush()?;
                }
            }
        };
        result.map_err(|source| HostError::TaskJoin {
            what: "the turn",
            source,
        })
    }
}

/// The next confirmation request; never ready when there is no channel.
async fn next_confirmation(
    requests: &mut Option<mpsc::Receiver<ConfirmRequest>>,
) -> Option<ConfirmRequest> {
    match requests {
        Some(requests) => requests.recv().await,
        None => std::future::pending().await,
    }
}

/// The "Compressing context..." spinner's state.
#[derive(Debug, Default)]
struct Spinner {
    active: bool,
    frame: usize,
}

impl Spinner {
    const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

    fn observe(&mut self, event: &EventKind) {
        match event {
            EventKind::CompressionStarted { .. } => self.active = true,
            EventKind::CompressionCompleted { .. } => self.active = false,
            _ => {}
        }
    }

    fn next_frame(&mut self) -> char {
        self.frame = (self.frame + 1) % Self::FRAMES.len();
        Self::FRAMES[self.frame]
    }
}
