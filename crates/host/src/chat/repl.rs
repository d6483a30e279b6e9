//! The chat loop: read a line, run a turn while streaming its events, repeat.
//!
//! Input is not read while a turn (or a compression) runs, so nothing typed is lost
//! or sent into a busy conversation — except one answer line when a command needs the
//! person's confirmation (see [`super::confirm`]).

use std::collections::HashSet;
use std::io::Write;
use std::sync::Arc;

use smallebot_application::{
    ConversationService, EventKind, PipelineError, SendOptions, TurnOutcome,
};
use smallebot_core::ids::ConversationId;
use smallebot_core::rules::terminal_text::escape_controls;
use tokio::sync::mpsc;

mod commands;

use super::confirm::{Asked, ConfirmRequest, ask};
use super::input::{Input, LineSource};
use super::slash::parse_slash;
use crate::error::HostError;
use crate::render::EventPrinter;

/// The REPL's state.
pub struct Repl<W: Write> {
    service: Arc<ConversationService>,
    user: String,
    /// The open conversation; `None` for a new one not created yet (it is created
    /// with its first message, so `/new` alone leaves nothing behind).
    conversation: Option<ConversationId>,
    /// The model chosen (`/model ID`) for the new conversation before it exists.
    pending_model: Option<String>,
    printer: EventPrinter<W>,
    interrupts: mpsc::UnboundedReceiver<()>,
    confirmations: Option<mpsc::Receiver<ConfirmRequest>>,
    /// Commands the person allowed for the rest of a conversation ("always").
    always_allowed: HashSet<(ConversationId, String)>,
    /// The MCP servers, for `/mcp`.
    mcp: Option<Arc<smallebot_agent::mcp::McpServers>>,
}

enum Next {
    Continue,
    Quit,
}

impl<W: Write> Repl<W> {
    /// A REPL on `conversation` (`None`: a new one, created with its first message);
    /// `interrupts` delivers Ctrl+C presses.
    pub fn new(
        service: Arc<ConversationService>,
        user: String,
        conversation: Option<ConversationId>,
        printer: EventPrinter<W>,
        interrupts: mpsc::UnboundedReceiver<()>,
    ) -> Self {
        Self {
            service,
            user,
            conversation,
            pending_model: None,
            printer,
            interrupts,
            confirmations: None,
            always_allowed: HashSet::new(),
            mcp: None,
        }
    }

    /// Shows these MCP servers on `/mcp`.
    #[must_use]
    pub fn with_mcp(mut self, mcp: Arc<smallebot_agent::mcp::McpServers>) -> Self {
        self.mcp = Some(mcp);
        self
    }

    /// Answers command confirmations from `requests` (see `TerminalConfirmer`) while a
    /// turn runs, reading the answer from the REPL's input.
    #[must_use]
    pub fn with_confirmations(mut self, requests: mpsc::Receiver<ConfirmRequest>) -> Self {
        self.confirmations = Some(requests);
        self
    }

    /// Tells the input which conversation ids `/switch` can complete.
    async fn offer_conversations<S: LineSource>(&self, input: &mut S) {
        if !input.draws_prompt() {
            return;
        }
        if let Ok(list) = self
            .service
            .store()
            .list_conversations(Some(&self.user))
            .await
        {
            input.offer_conversations(list.iter().map(|c| c.id.to_string()).collect());
        }
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
    pub async fn run<S: LineSource>(&mut self, mut input: S) -> Result<(), HostError> {
        let mut exit_armed = false;
        loop {
            self.offer_conversations(&mut input).await;
            if !input.draws_prompt() {
                write!(self.printer.out(), "› ")?;
                self.printer.out().flush()?;
            }
            let entry = tokio::select! {
                entry = input.read("› ") => entry?,
                Some(()) = self.interrupts.recv() => Input::Interrupted,
            };
            let line = match entry {
                Input::Line(line) => line,
                Input::Closed => {
                    self.say("")?;
                    return Ok(());
                }
                Input::Interrupted if exit_armed => {
                    self.say("")?;
                    return Ok(());
                }
                Input::Interrupted => {
                    exit_armed = true;
                    self.say("(press Ctrl+C again to exit, or type /quit)")?;
                    continue;
                }
            };
            exit_armed = false;
            let next = match parse_slash(&line) {
                Some(Ok(command)) => match self.command(command, &mut input).await {
                    Ok(next) => next,
                    // The terminal is gone: nothing more can be said.
                    Err(HostError::Io(error)) => return Err(HostError::Io(error)),
                    Err(error) => {
                        self.say(&format!("error: {error}"))?;
                        Next::Continue
                    }
                },
                Some(Err(message)) => {
                    self.say(&message)?;
                    Next::Continue
                }
                None if line.trim().is_empty() => Next::Continue,
                None => {
                    match self.turn(line, &mut input).await {
                        Ok(()) => {}
                        Err(HostError::Io(error)) => return Err(HostError::Io(error)),
                        Err(error) => self.say(&format!("error: {error}"))?,
                    }
                    Next::Continue
                }
            };
            if let Next::Quit = next {
                return Ok(());
            }
        }
    }

    /// The open conversation, created now if it is a new one (with the model chosen
    /// for it).
    async fn open_conversation(&mut self) -> Result<ConversationId, HostError> {
        if let Some(id) = self.conversation {
            return Ok(id);
        }
        let created = self.service.create_conversation(&self.user).await?;
        if let Some(model) = self.pending_model.take() {
            self.service.set_model(created.id, Some(&model)).await?;
        }
        self.conversation = Some(created.id);
        Ok(created.id)
    }

    async fn turn<S: LineSource>(&mut self, text: String, input: &mut S) -> Result<(), HostError> {
        let conversation = self.open_conversation().await?;
        let service = Arc::clone(&self.service);
        let task = async move {
            service
                .send(conversation, &text, SendOptions::default())
                .await
        };
        self.run_turn(conversation, task, input).await
    }

    /// Drives a turn (a send, an edit, a regeneration) and titles the conversation in
    /// the background after its first turn.
    async fn run_turn<S: LineSource>(
        &mut self,
        conversation: ConversationId,
        task: impl std::future::Future<Output = Result<TurnOutcome, PipelineError>> + Send + 'static,
        input: &mut S,
    ) -> Result<(), HostError> {
        match self.drive(conversation, task, input).await? {
            Ok(outcome) if outcome.first_turn => {
                let service = Arc::clone(&self.service);
                tokio::spawn(async move { service.generate_title(conversation).await });
            }
            Ok(_) => {}
            Err(err) => self.say(&format!("error: {err}"))?,
        }
        Ok(())
    }

    async fn compact<S: LineSource>(
        &mut self,
        focus: Option<String>,
        input: &mut S,
    ) -> Result<(), HostError> {
        let Some(conversation) = self.conversation else {
            return self.say("nothing to compact: this conversation has no messages yet");
        };
        let service = Arc::clone(&self.service);
        let task = async move { service.compact(conversation, focus.as_deref()).await };
        // Success and failure alike were printed from the compression's events.
        if let Err(err) = self.drive(conversation, task, input).await? {
            self.say(&format!("error: {err}"))?;
        }
        Ok(())
    }

    /// Runs `task` while printing `conversation`'s events; Ctrl+C cancels the turn.
    /// Input is not read meanwhile, except to answer a command confirmation. A spinner
    /// turns while a compression runs and is wiped before anything else is printed.
    async fn drive<T: Send + 'static, S: LineSource>(
        &mut self,
        conversation: ConversationId,
        task: impl std::future::Future<Output = T> + Send + 'static,
        input: &mut S,
    ) -> Result<T, HostError> {
        let mut events = self.service.subscribe(conversation);
        let mut handle = tokio::spawn(task);
        let mut spinner = Spinner::default();
        let mut tick = tokio::time::interval(std::time::Duration::from_millis(120));
        let result = loop {
            tokio::select! {
                Some(event) = events.recv() => {
                    spinner.observe(&event.kind);
                    spinner.wipe(self.printer.out())?;
                    self.printer.print(&event)?;
                }
                joined = &mut handle => {
                    spinner.wipe(self.printer.out())?;
                    while let Some(event) = events.try_recv() {
                        self.printer.print(&event)?;
                    }
                    break joined;
                }
                Some(()) = self.interrupts.recv() => {
                    self.service.cancel(conversation);
                }
                Some(request) = next_confirmation(&mut self.confirmations) => {
                    spinner.wipe(self.printer.out())?;
                    let command = request.command().to_owned();
                    if self.always_allowed.contains(&(conversation, command.clone())) {
                        let line = format!("→ allowed (always in this conversation): $ {command}");
                        self.say(&line)?;
                        request.allow();
                        continue;
                    }
                    match ask(request, input, self.printer.out(), &mut self.interrupts).await? {
                        Asked::Interrupted => {
                            self.service.cancel(conversation);
                        }
                        Asked::Always => {
                            self.always_allowed.insert((conversation, command));
                        }
                        Asked::Answered(_) => {}
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
    /// A frame is on the current line.
    drawn: bool,
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
        self.drawn = true;
        self.frame = (self.frame + 1) % Self::FRAMES.len();
        Self::FRAMES[self.frame]
    }

    /// Clears the spinner's line if a frame is on it.
    fn wipe(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        if self.drawn {
            self.drawn = false;
            write!(out, "\r\x1b[2K")?;
        }
        Ok(())
    }
}
