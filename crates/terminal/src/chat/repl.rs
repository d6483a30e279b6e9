//! The chat loop: read a line, run a turn while streaming its events, repeat.
//!
//! Input is not read while a turn (or a compression) runs, so nothing typed is lost
//! or sent into a busy conversation — except one answer line when a command needs the
//! person's confirmation (see [`super::confirm`]).

use std::io::Write;
use std::sync::Arc;

use smallebot_application::ConversationService;
use smallebot_core::ids::ConversationId;
use smallebot_core::rules::terminal_text::escape_controls;
use tokio::sync::mpsc;

mod attach;
mod changes;
mod commands;
mod copy;
mod export;
mod follow;
mod mcp_chat;
mod permissions;
mod resume;
mod rewind;
mod show;

use super::confirm::ConfirmRequest;
use super::elicit::FormRequest;
use super::input::{Input, LineSource};
use super::slash::parse_slash;
use crate::attach_files::pasted_images;
use crate::error::TerminalError;
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
    /// MCP servers' forms (elicitation), answered while a turn runs.
    forms: Option<mpsc::Receiver<FormRequest>>,
    /// The MCP servers, for `/mcp`, their resources (`@server:uri`) and prompts
    /// (`/server:prompt`).
    mcp: Option<Arc<smallebot_mcp::McpServers>>,
    /// The skills, for `/skills`.
    skills: Option<Arc<smallebot_agent::skills::SkillCatalog>>,
    /// The agent folders, for `/agents`.
    agents: Option<smallebot_agent::agents::AgentFolders>,
    /// The workspace the conversation's tools work in, for `/rewind`.
    workspace: Option<std::path::PathBuf>,
    /// The output is a terminal (with or without colours): `/clear` clears it.
    terminal: bool,
    /// The tokenizer (built in the background), waited for before a turn is sent so
    /// its context figure is exact even when the first message came at once.
    tokenizer: Option<Arc<smallebot_agent::tokenizer::Tokenizer>>,
    /// Files attached with `/attach` (or a pasted image path), sent with the next
    /// message.
    pending: Vec<crate::attach_files::FileToAttach>,
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
            forms: None,
            mcp: None,
            skills: None,
            agents: None,
            workspace: None,
            terminal: false,
            tokenizer: None,
            pending: Vec::new(),
        }
    }

    /// Counts every turn's context exactly: `tokenizer` is waited for (if it is still
    /// being built) before a turn is sent.
    #[must_use]
    pub fn with_tokenizer(mut self, tokenizer: Arc<smallebot_agent::tokenizer::Tokenizer>) -> Self {
        self.tokenizer = Some(tokenizer);
        self
    }

    /// Waits until the tokenizer is built (at once when it is), so the turn's context
    /// figure is counted, not bounded.
    async fn exact_counts(&self) {
        if let Some(tokenizer) = self.tokenizer.as_ref().filter(|t| !t.is_ready()) {
            let tokenizer = Arc::clone(tokenizer);
            let _built = tokio::task::spawn_blocking(move || tokenizer.warm_up()).await;
        }
    }

    /// Whether the output is a terminal (colours or not: `NO_COLOR` only takes the
    /// colours away).
    #[must_use]
    pub fn on_terminal(mut self, terminal: bool) -> Self {
        self.terminal = terminal;
        self
    }

    /// Lists these skills on `/skills`.
    #[must_use]
    pub fn with_skills(
        mut self,
        skills: Option<Arc<smallebot_agent::skills::SkillCatalog>>,
    ) -> Self {
        self.skills = skills;
        self
    }

    /// Lists the agent definitions of these folders on `/agents`.
    #[must_use]
    pub fn with_agents(mut self, agents: smallebot_agent::agents::AgentFolders) -> Self {
        self.agents = Some(agents);
        self
    }

    /// Rewinds files in `workspace` on `/rewind`.
    #[must_use]
    pub fn with_workspace(mut self, workspace: std::path::PathBuf) -> Self {
        self.workspace = Some(workspace);
        self
    }

    /// Shows these MCP servers on `/mcp`.
    #[must_use]
    pub fn with_mcp(mut self, mcp: Arc<smallebot_mcp::McpServers>) -> Self {
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

    /// Answers MCP servers' forms from `requests` (see `TerminalElicitor`) while a turn
    /// runs, reading the answers from the REPL's input.
    #[must_use]
    pub fn with_forms(mut self, requests: mpsc::Receiver<FormRequest>) -> Self {
        self.forms = Some(requests);
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
    fn say(&mut self, text: &str) -> Result<(), TerminalError> {
        writeln!(self.printer.out(), "{}", escape_controls(text))?;
        Ok(())
    }

    /// Runs until /quit, end of input, or two Ctrl+C at the prompt.
    ///
    /// # Errors
    /// Terminal I/O failures and storage failures.
    pub async fn run<S: LineSource>(&mut self, input: S) -> Result<(), TerminalError> {
        // A conversation continued (`chat --resume`, `chat ID`) starts its session now;
        // a new one when it is created with its first message.
        if let Some(id) = self.conversation {
            self.service.session_started(id, "resume").await;
        }
        let ended = self.run_lines(input).await;
        // The SessionEnd hooks of the conversation open at the end.
        if let Some(id) = self.conversation {
            self.service.session_ended(id, "exit").await;
        }
        ended
    }

    /// [`Self::run`] without the session's end.
    async fn run_lines<S: LineSource>(&mut self, mut input: S) -> Result<(), TerminalError> {
        let mut exit_armed = false;
        self.offer_mcp(&mut input).await;
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
            let parsed = parse_slash(&line);
            // A line of image paths (dragged onto the terminal) attaches them; a
            // command is never taken for one.
            if !matches!(parsed, Some(Ok(_)))
                && let Some(images) = pasted_images(&line)
            {
                self.attach(&images).await?;
                continue;
            }
            let next = match parsed {
                Some(Ok(command)) => match self.command(command, &mut input).await {
                    Ok(next) => next,
                    // The terminal is gone: nothing more can be said.
                    Err(TerminalError::Io(error)) => return Err(TerminalError::Io(error)),
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
                    self.exact_counts().await;
                    match self.turn(line, &mut input).await {
                        Ok(()) => {}
                        Err(TerminalError::Io(error)) => return Err(TerminalError::Io(error)),
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
    async fn open_conversation(&mut self) -> Result<ConversationId, TerminalError> {
        if let Some(id) = self.conversation {
            return Ok(id);
        }
        let created = self.service.create_conversation(&self.user).await?;
        if let Some(model) = self.pending_model.take() {
            self.service.set_model(created.id, Some(&model)).await?;
        }
        self.conversation = Some(created.id);
        self.service.session_started(created.id, "startup").await;
        Ok(created.id)
    }
}
