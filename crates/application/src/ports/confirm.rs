//! The confirmation port: asking the person whether a tool call may run.
//!
//! The agent's permission gate asks through it about any tool call the permission rules
//! ask about (and `ExecuteCommand` before running a command without the sandbox); a
//! front end (the chat REPL, the web app) implements it.

use std::time::Duration;

use async_trait::async_trait;
use smallebot_core::ids::{ConversationId, TurnId};

/// What a confirmation asks about: the call, the rule that asked, and where it would
/// run for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfirmationRequest<'a> {
    /// The call in one line: a command line as the model wrote it, else the tool's
    /// name and its arguments, shortened.
    pub command: &'a str,
    /// The tool called (its name as the model calls it; empty when not given).
    pub tool: &'a str,
    /// What asked: the permission rule (`ask ExecuteCommand(git push:*)`) or the
    /// default that applied (`None`: not said).
    pub rule: Option<&'a str>,
    /// Whether the call is a command line (shown as `$ <command>`; the default).
    pub is_command: bool,
    /// The conversation whose turn asks (`None` outside a conversation).
    pub conversation_id: Option<ConversationId>,
    /// The turn that asks.
    pub turn_id: Option<TurnId>,
    /// The command would run without the sandbox (the kernel has no Landlock): the
    /// person should know before allowing it.
    pub unconfined: bool,
}

impl<'a> ConfirmationRequest<'a> {
    /// A request to run the command line `command` for the given conversation and
    /// turn.
    #[must_use]
    pub fn new(
        command: &'a str,
        conversation_id: Option<ConversationId>,
        turn_id: Option<TurnId>,
    ) -> Self {
        Self {
            command,
            tool: "",
            rule: None,
            is_command: true,
            conversation_id,
            turn_id,
            unconfined: false,
        }
    }

    /// The same request, about a call of `tool` that `rule` asked about.
    #[must_use]
    pub fn about(mut self, tool: &'a str, rule: &'a str) -> Self {
        self.tool = tool;
        self.rule = Some(rule);
        self
    }

    /// The same request, about a call that is not a command line (shown as the
    /// tool's name and arguments rather than `$ <command>`).
    #[must_use]
    pub fn not_a_command(mut self) -> Self {
        self.is_command = false;
        self
    }

    /// The same request, for running without the sandbox.
    #[must_use]
    pub fn unconfined(mut self) -> Self {
        self.unconfined = true;
        self
    }
}

/// The person's answer to a question about a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Run it, this once.
    Once,
    /// Run it, and calls like it for the rest of this conversation without asking.
    Conversation,
    /// Run it, and calls like it from now on (an allow rule for this user).
    Always,
    /// Do not run it (also: no answer in time).
    Deny,
}

impl Answer {
    /// Whether the call may run.
    #[must_use]
    pub fn allows(self) -> bool {
        self != Self::Deny
    }
}

/// Asks the person whether a tool call may run.
///
/// Implemented by the host: the chat REPL prompts `Allow? [y/N, …]`, the web app shows
/// a dialog on the conversation's page. Anything but an explicit yes within the
/// timeout is a no.
#[async_trait]
pub trait CommandConfirmer: Send + Sync {
    /// Shows the request's call and waits at most `timeout` for the answer; `true`
    /// only when the person allowed it.
    async fn confirm(&self, request: &ConfirmationRequest<'_>, timeout: Duration) -> bool;

    /// As [`CommandConfirmer::confirm`], with the person's choice of how far the
    /// answer reaches (default: [`Answer::Once`] or [`Answer::Deny`]; front ends that
    /// offer more answer here).
    async fn answer(&self, request: &ConfirmationRequest<'_>, timeout: Duration) -> Answer {
        if self.confirm(request, timeout).await {
            Answer::Once
        } else {
            Answer::Deny
        }
    }
}

/// Denies every command: for hosts without a person to ask (`smallebot run` without a
/// terminal).
#[derive(Debug, Default, Clone, Copy)]
pub struct DenyAll;

#[async_trait]
impl CommandConfirmer for DenyAll {
    async fn confirm(&self, _request: &ConfirmationRequest<'_>, _timeout: Duration) -> bool {
        false
    }
}
