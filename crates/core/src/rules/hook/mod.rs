//! Hooks: the owner's own programs run at fixed points of a turn (`hooks.json`, the
//! shape Claude Code uses). What is pure about them lives here:
//!
//! - [`HookEvent`]: the eight events and their names;
//! - [`Matcher`]: which tools a `PreToolUse` / `PostToolUse` entry applies to
//!   (`ExecuteCommand|WriteFile`, a regular expression on the whole name, or `*`);
//! - [`interpret`]: what one hook's exit code and output mean ([`HookResult`]), and
//!   [`combine`]: what the hooks of one event mean together;
//! - [`HookInput`]: the JSON object a hook reads on its standard input;
//! - [`may_continue`]: the guard that bounds how often `Stop` hooks make a turn go on.
//!
//! # Exit codes and output
//!
//! | Exit | Meaning |
//! | --- | --- |
//! | 0 | go on; standard output may be a JSON object (below) |
//! | 2 | block: standard error is the reason, given to the model |
//! | other, or killed | a warning to the person; the turn goes on |
//!
//! The JSON object of exit 0 may hold `decision` or `permissionDecision`
//! (`allow`, `deny`, `ask`; `block` and `approve` as Claude Code writes them) with
//! `reason`, `updatedInput` (PreToolUse), `additionalContext`, `continue: false` with
//! `stopReason`; each may also sit in `hookSpecificOutput`, as Claude Code writes it.
//! Plain text on standard output is context for `UserPromptSubmit` and
//! `SessionStart`, and ignored for the other events.

mod event;
mod input;
mod matcher;
mod output;

pub use event::HookEvent;
pub use input::HookInput;
pub use matcher::{Matcher, MatcherError};
pub use output::{HookDecision, HookExit, HookResult, combine, interpret};

/// How many times in one turn `Stop` (or `SubagentStop`) hooks may make the model go on.
pub const MAX_STOP_CONTINUATIONS: u32 = 3;

/// Whether a `Stop` hook may make the turn go on once more after `continued` times.
#[must_use]
pub fn may_continue(continued: u32) -> bool {
    continued < MAX_STOP_CONTINUATIONS
}

#[cfg(test)]
mod tests;
