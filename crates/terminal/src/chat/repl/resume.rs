//! Reopening a conversation: its last turns shown bounded (`chat` continuing one,
//! `/switch`, the picker), `/history` for all of it, `/resume` choosing it from a
//! picker of recent conversations.

use std::io::Write;

use smallebot_core::entities::TurnStatus;
use smallebot_core::ids::ConversationId;

use super::Repl;
use crate::chat::picker::{self, Choice};
use crate::error::TerminalError;
use crate::render::{RESUMED_TURNS, recent_transcript, render_timeline};
use smallebot_application::wire::bodies::answer_cut;

/// Conversations the picker offers, most recently active first.
pub const PICKER_CONVERSATIONS: usize = 50;

impl<W: Write> Repl<W> {
    /// Prints the last turns of `conversation` (when it has any), bounded, with the
    /// turns that did not complete marked.
    pub async fn show_recent(&mut self, conversation: ConversationId) -> Result<(), TerminalError> {
        let rows = self.service.store().rows_after(conversation, 0).await?;
        let turns = self.service.store().list_turns(conversation).await?;
        let undone: Vec<_> = turns
            .iter()
            .filter(|t| t.undone_at.is_some())
            .map(|t| t.id)
            .collect();
        let ended: Vec<_> = turns
            .iter()
            .filter_map(|t| {
                let mark = match t.status {
                    TurnStatus::Cancelled => "cancelled — partial answer kept".to_owned(),
                    TurnStatus::Interrupted => "interrupted — the process stopped".to_owned(),
                    TurnStatus::Failed => format!(
                        "failed: {}",
                        t.error.as_deref().unwrap_or("no reason stored")
                    ),
                    TurnStatus::Completed => crate::render::cut_mark(answer_cut(t.cut?)).to_owned(),
                    _ => return None,
                };
                Some((t.id, mark))
            })
            .collect();
        let answers = self.printer.answer_view();
        let transcript = recent_transcript(&rows, RESUMED_TURNS, &undone, &ended, &answers);
        if !transcript.is_empty() {
            // Already escaped, line by line.
            write!(self.printer.out(), "{transcript}")?;
        }
        Ok(())
    }

    /// `/history`: the whole timeline of this conversation.
    pub(super) async fn history(&mut self) -> Result<(), TerminalError> {
        let Some(id) = self.conversation else {
            return self.say("no history yet: this conversation has no messages");
        };
        let store = self.service.store();
        let conversation = store
            .get_conversation(id)
            .await?
            .ok_or(TerminalError::ConversationNotFound(id))?;
        let turns = store.list_turns(id).await?;
        let rows = store.rows_after(id, 0).await?;
        let timeline = render_timeline(&conversation, &turns, &rows);
        self.say(timeline.trim_end())
    }

    /// `/resume`: a conversation chosen from the picker is opened.
    pub(super) async fn resume(&mut self) -> Result<(), TerminalError> {
        if !self.terminal {
            return self.say("/resume needs a terminal: /list shows the ids, /switch ID opens one");
        }
        match self.pick().await? {
            Some(id) => self.open(id).await,
            None => self.say("(nothing opened)"),
        }
    }

    /// Opens `id`: says so and shows its last turns.
    pub async fn open(&mut self, id: ConversationId) -> Result<(), TerminalError> {
        let found = self
            .service
            .store()
            .get_conversation(id)
            .await?
            .ok_or(TerminalError::ConversationNotFound(id))?;
        // Another conversation's session ends, this one's (re)starts.
        if let Some(left) = self.conversation.filter(|left| *left != found.id) {
            self.service.session_ended(left, "switch").await;
        }
        if self.conversation != Some(found.id) {
            self.service.session_started(found.id, "resume").await;
        }
        self.conversation = Some(found.id);
        self.say(&format!("switched to {} — {}", found.id, found.title))?;
        self.show_recent(found.id).await?;
        self.say_still_attached()
    }

    /// The picker over this user's recent conversations; `None` when cancelled (or
    /// there are none).
    pub async fn pick(&mut self) -> Result<Option<ConversationId>, TerminalError> {
        let store = std::sync::Arc::clone(self.service.store());
        let list = store.list_conversations(Some(&self.user)).await?;
        if list.is_empty() {
            self.say("no conversations yet")?;
            return Ok(None);
        }
        let (mut choices, mut ids) = (Vec::new(), Vec::new());
        for c in list.into_iter().take(PICKER_CONVERSATIONS) {
            let turns = store.list_turns(c.id).await?.len();
            choices.push(Choice {
                title: c.title.clone(),
                when: c.updated_at.format("%Y-%m-%d %H:%M").to_string(),
                turns,
            });
            ids.push(c.id);
        }
        self.printer.out().flush()?;
        let chosen = tokio::task::spawn_blocking(move || picker::pick(&choices))
            .await
            .map_err(|source| TerminalError::TaskJoin {
                what: "the picker",
                source,
            })??;
        Ok(chosen.and_then(|at| ids.get(at).copied()))
    }
}
