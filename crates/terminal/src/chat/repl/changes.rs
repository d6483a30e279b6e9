//! `/changes`: the files the last turn of the conversation changed.

use std::io::Write;

use super::Repl;
use crate::error::TerminalError;
use crate::render::file_changes::file_changes_block;

impl<W: Write> Repl<W> {
    /// `/changes`: the last turn's file changes, as `conversations show` lists them.
    pub(super) async fn changes(&mut self) -> Result<(), TerminalError> {
        let Some(id) = self.conversation else {
            return self.say("no changes yet: this conversation has no turns");
        };
        let store = self.service.store();
        let turns = store.list_turns(id).await?;
        let Some(last) = turns.last() else {
            return self.say("no changes yet: this conversation has no turns");
        };
        let changes: Vec<_> = store
            .file_changes(id)
            .await?
            .into_iter()
            .filter(|c| c.turn_id == last.id)
            .collect();
        if changes.is_empty() {
            return self.say("the last turn changed no files");
        }
        let block = file_changes_block(&turns, &changes);
        self.say(block.trim_end())
    }
}
