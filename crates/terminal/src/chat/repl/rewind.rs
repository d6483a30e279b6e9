//! `/rewind`: the files (and, or, the turns) of this conversation as they were before a
//! turn, or the last rewind undone — `smallebot rewind` on the open conversation.

use std::io::Write;
use std::sync::Arc;

use super::Repl;
use crate::chat::slash::RewindSlash;
use crate::error::TerminalError;
use crate::rewind::{RewindArgs, rewind_lines};

impl<W: Write> Repl<W> {
    /// `/rewind`: rewinds the open conversation in the workspace and says what it did
    /// (restored files, conflicts kept, turns taken back).
    pub(super) async fn rewind(&mut self, args: RewindSlash) -> Result<(), TerminalError> {
        let Some(id) = self.conversation else {
            return self.say("nothing to rewind: this conversation has no turns");
        };
        let Some(workspace) = self.workspace.clone() else {
            return self.say("/rewind needs the workspace, which this chat was not given");
        };
        let scope = args.scope.as_deref();
        let rewind = RewindArgs {
            conversation_ref: id.to_string(),
            to: args.to,
            files: scope == Some("files"),
            conversation: scope == Some("conversation"),
            both: scope == Some("both"),
            force: args.force,
            undo: args.undo,
        };
        let store = Arc::clone(self.service.store());
        let lines = match rewind_lines(store, &workspace, &[], &rewind).await {
            Ok(lines) => lines,
            // A refusal (a turn runs, no such turn, nothing to undo) is said, not fatal.
            Err(TerminalError::Rewind(error)) => vec![format!("cannot rewind: {error}")],
            Err(other) => return Err(other),
        };
        for line in lines {
            let line = if line.starts_with("to undo this rewind") {
                "to undo this rewind: /rewind undo".to_owned()
            } else {
                line
            };
            self.say(&line)?;
        }
        Ok(())
    }
}
