//! The REPL's slash commands.

use std::io::Write;
use std::sync::Arc;

use super::super::input::LineSource;
use smallebot_agent::tools;
use smallebot_application::{PipelineError, SendOptions};
use smallebot_core::entities::{HistoryRow, Role, SearchQuery, SearchScope};
use smallebot_core::rules::search_limits::DEFAULT_MAX_RESULTS;

use super::{Next, Repl};
use crate::chat::slash::Slash;
use crate::conversation_ref::find_conversation;
use crate::error::TerminalError;
use crate::render::{conversation_line, tokens};
use smallebot_core::rules::truncation::truncate_with_marker;

impl<W: Write> Repl<W> {
    pub(super) async fn command<S: LineSource>(
        &mut self,
        command: Slash,
        input: &mut S,
    ) -> Result<Next, TerminalError> {
        match command {
            Slash::Quit => return Ok(Next::Quit),
            Slash::Help => self.help().await?,
            Slash::McpPrompt {
                server,
                prompt,
                args,
            } => self.mcp_prompt(&server, &prompt, &args, input).await?,
            Slash::New => self.new_conversation()?,
            Slash::Clear => self.clear()?,
            Slash::Copy => self.copy().await?,
            Slash::Attach(path) => self.attach(&[path.into()]).await?,
            Slash::Attached => self.list_attached()?,
            Slash::AttachClear => self.clear_attached()?,
            Slash::Export(format, file) => self.export(format, file).await?,
            Slash::Verbose(choice) => self.verbose(choice)?,
            Slash::History => self.history().await?,
            Slash::Changes => self.changes().await?,
            Slash::Permissions(revoke) => self.permissions(revoke).await?,
            Slash::Rewind(args) => self.rewind(args).await?,
            Slash::Show(number) => self.show(number).await?,
            Slash::Resume => self.resume().await?,
            Slash::List => self.list().await?,
            Slash::Switch(reference) => return self.switch(reference).await,
            Slash::Compact(focus) => self.compact(focus, input).await?,
            Slash::Search(text) => self.search(text).await?,
            Slash::Tasks => self.tasks().await?,
            Slash::Mcp => self.mcp().await?,
            Slash::Skills => self.skills()?,
            Slash::Agents => self.agents()?,
            Slash::Usage => self.usage().await?,
            Slash::Model(choice) => self.model(choice).await?,
            Slash::Retry => self.retry(input).await?,
            Slash::Edit(text) => self.edit(text, input).await?,
            Slash::Undo => self.undo().await?,
        }
        Ok(Next::Continue)
    }

    /// `/new`: the next message starts a new conversation.
    fn new_conversation(&mut self) -> Result<(), TerminalError> {
        self.conversation = None;
        self.pending_model = None;
        self.say("new conversation: it is saved with your first message")?;
        self.say_still_attached()
    }

    /// `/clear`: the screen and the scrollback cleared (on a terminal).
    fn clear(&mut self) -> Result<(), TerminalError> {
        if self.terminal {
            // Home, the screen, and the scrollback (as `clear` does).
            write!(self.printer.out(), "\x1b[H\x1b[2J\x1b[3J")?;
            self.printer.out().flush()?;
        }
        Ok(())
    }

    /// `/verbose [on|off]`: how tool results are printed, set or shown.
    fn verbose(&mut self, choice: Option<bool>) -> Result<(), TerminalError> {
        if let Some(verbose) = choice {
            self.printer.set_verbose(verbose);
        }
        self.say(if self.printer.verbose() {
            "tool results: printed whole as each call ends (/verbose off folds them)"
        } else {
            "tool results: folded into each call's line (/show N expands one; /verbose on \
             prints them all)"
        })
    }

    /// `/switch ID`: opens the conversation of the user that the id (or its start) names.
    async fn switch(&mut self, reference: String) -> Result<Next, TerminalError> {
        let store = self.service.store().as_ref();
        let found = match find_conversation(store, &reference, Some(&self.user)).await {
            Ok(found) => found,
            // In the chat, the ids are one command away.
            Err(TerminalError::NoConversationMatches { reference, .. }) => {
                let line = format!(
                    "no conversation of yours has an id starting with '{reference}': \
                     /list shows them (Tab after /switch completes them)"
                );
                self.say(&line)?;
                return Ok(Next::Continue);
            }
            Err(error) => return Err(error),
        };
        self.open(found.id).await?;
        Ok(Next::Continue)
    }

    /// `/search TEXT`: the user's history searched, as `smallebot search` shows it.
    async fn search(&mut self, text: String) -> Result<(), TerminalError> {
        let query = SearchQuery {
            text,
            scope: SearchScope::User(self.user.clone()),
            since: None,
            limit: DEFAULT_MAX_RESULTS,
        };
        let store = Arc::clone(self.service.store());
        let found = tools::search_for_people(store.as_ref(), &query).await?;
        self.say(&found)
    }

    /// `/tasks`: the conversation's plan.
    async fn tasks(&mut self) -> Result<(), TerminalError> {
        let plan = match (self.service.plan(), self.conversation) {
            (Some(plan), Some(id)) => plan.plan_text(id).await,
            _ => None,
        };
        self.say(plan.as_deref().unwrap_or("No tasks yet."))
    }

    /// `/mcp`: the MCP servers and how they stand.
    async fn mcp(&mut self) -> Result<(), TerminalError> {
        let status = match &self.mcp {
            Some(mcp) => mcp.status().await,
            None => Vec::new(),
        };
        let text = if status.is_empty() {
            "No MCP servers (add them to mcp.json in the home directory).".to_owned()
        } else {
            crate::mcp_status::status_lines(&status).join("\n")
        };
        self.say(&text)
    }

    /// `/agents`: the agent definitions the model may delegate to (read now).
    fn agents(&mut self) -> Result<(), TerminalError> {
        let text = match &self.agents {
            Some(folders) => {
                let set = smallebot_agent::agents::AgentSet::read(folders);
                crate::agents_text::list_lines(&set).join("\n")
            }
            None => "No agent definitions here.".to_owned(),
        };
        self.say(&text)
    }

    /// `/skills`: the skills the agent sees.
    fn skills(&mut self) -> Result<(), TerminalError> {
        let lines = self
            .skills
            .as_ref()
            .map(|catalog| crate::skills_text::list_lines(&catalog.current()))
            .unwrap_or_default();
        let text = if lines.is_empty() {
            "No skills (add a folder with a SKILL.md to skills/ in the home directory).".to_owned()
        } else {
            lines.join("\n")
        };
        self.say(&text)
    }

    async fn list(&mut self) -> Result<(), TerminalError> {
        let list = self
            .service
            .store()
            .list_conversations(Some(&self.user))
            .await?;
        if list.is_empty() {
            self.say("no conversations yet")?;
        }
        for c in &list {
            let mark = if Some(c.id) == self.conversation {
                "*"
            } else {
                " "
            };
            let line = format!("{mark} {}", conversation_line(c));
            self.say(&line)?;
        }
        Ok(())
    }

    async fn usage(&mut self) -> Result<(), TerminalError> {
        let Some(conversation) = self.conversation else {
            return self.say("context: nothing sent yet in this new conversation");
        };
        let estimate = self.service.context_estimate(conversation).await?;
        let text = format!(
            "context: {} of {} tokens ({:.1}%), compression at {:.0}%",
            tokens(estimate.used),
            tokens(estimate.window),
            estimate.ratio() * 100.0,
            self.service.settings().compression_threshold * 100.0
        );
        self.say(&text)?;
        let store = self.service.store().as_ref();
        match crate::usage::cost_line(store, conversation, None).await? {
            Some(line) => self.say(&line),
            None => Ok(()),
        }
    }

    /// `/model`: the list with the current one marked; `/model ID`: choose it.
    async fn model(&mut self, choice: Option<String>) -> Result<(), TerminalError> {
        let current = match self.conversation {
            Some(id) => {
                let conversation = self
                    .service
                    .store()
                    .get_conversation(id)
                    .await?
                    .ok_or(TerminalError::ConversationNotFound(id))?;
                self.service.model_of(&conversation)
            }
            None => self
                .pending_model
                .clone()
                .or_else(|| self.service.models().first().map(|m| m.id.clone())),
        };
        let Some(id) = choice else {
            let models = self.service.models().to_vec();
            if models.is_empty() {
                return self.say(
                    "one model is configured; list more in models.json to choose between them",
                );
            }
            for m in models {
                let mark = if current.as_deref() == Some(m.id.as_str()) {
                    "*"
                } else {
                    " "
                };
                let line = format!(
                    "{mark} {} ({}, {} tokens)",
                    m.id,
                    m.model,
                    tokens(m.context_window)
                );
                self.say(&line)?;
            }
            return Ok(());
        };
        match self.conversation {
            Some(conversation) => {
                self.service.set_model(conversation, Some(&id)).await?;
            }
            None if self.service.models().iter().any(|m| m.id == id) => {
                self.pending_model = Some(id.clone());
            }
            None => {
                let known: Vec<&str> = self
                    .service
                    .models()
                    .iter()
                    .map(|m| m.id.as_str())
                    .collect();
                return Err(PipelineError::UnknownModel {
                    id,
                    known: known.join(", "),
                }
                .into());
            }
        }
        self.say(&format!("model: {id} (from the next message on)"))
    }

    /// `/retry`: the last turn answered again.
    async fn retry<S: LineSource>(&mut self, input: &mut S) -> Result<(), TerminalError> {
        let Some(conversation) = self.conversation else {
            return self.say("nothing to retry: this conversation has no messages yet");
        };
        let turns = self.service.store().list_turns(conversation).await?;
        let Some(last) = turns.iter().rev().find(|t| t.undone_at.is_none()) else {
            return self.say("nothing to retry: this conversation has no messages yet");
        };
        let (service, turn) = (Arc::clone(&self.service), last.id);
        let starting = async move {
            service
                .start_regenerate(conversation, turn, SendOptions::default())
                .await
        };
        self.follow_turn(conversation, starting, input).await
    }

    /// `/edit TEXT`: the last user message replaced and answered again.
    async fn edit<S: LineSource>(
        &mut self,
        text: String,
        input: &mut S,
    ) -> Result<(), TerminalError> {
        let Some(conversation) = self.conversation else {
            return self.say("nothing to edit: this conversation has no messages yet");
        };
        let rows = self
            .service
            .store()
            .context_rows_after(conversation, 0)
            .await?;
        let last = rows.iter().rev().find_map(|row| match row {
            HistoryRow::Message(m) if m.role == Role::User && m.replaced_by.is_none() => Some(m.id),
            _ => None,
        });
        let Some(message) = last else {
            return self.say("nothing to edit: you have not sent a message here yet");
        };
        let service = Arc::clone(&self.service);
        let starting = async move {
            service
                .start_edit(conversation, message, &text, SendOptions::default())
                .await
        };
        self.follow_turn(conversation, starting, input).await
    }

    /// `/undo`: the last turn in the context taken out of it, kept in the history.
    async fn undo(&mut self) -> Result<(), TerminalError> {
        let Some(conversation) = self.conversation else {
            return self.say("nothing to undo: this conversation has no messages yet");
        };
        let Some(turn) = self.service.undo_last_turn(conversation).await? else {
            return self
                .say("nothing to undo: no turn after the last summary is left in the context");
        };
        let rows = self
            .service
            .store()
            .rows_after(conversation, turn.seq)
            .await?;
        let asked = rows.iter().find_map(|row| match row {
            HistoryRow::Message(m) if m.turn_id == turn.id && m.role == Role::User => Some(
                truncate_with_marker(m.content.trim().lines().next().unwrap_or(""), 60, "…"),
            ),
            _ => None,
        });
        let line = format!(
            "undone: the turn “{}” no longer goes to the model (it stays in the history, \
             marked undone; /retry answers your last message still in the context)",
            asked.as_deref().unwrap_or("")
        );
        self.say(&line)?;
        self.usage().await
    }
}
