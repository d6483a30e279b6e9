//! The confirmation port: asking the person whether a command may run.
//!
//! A tool that runs commands (the agent's `ExecuteCommand`, MCP tools marked for
//! confirmation) asks through it; a front end (the chat REPL, the web app) implements it.

use std::time::Duration;

use async_trait::async_trait;
use smallebot_core::ids::{ConversationId, TurnId};

/// What a confirmation asks about: the command, and where it would run for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfirmationRequest<'a> {
    /// The command line as the model wrote it.
    pub command: &'a str,
    /// The conversation whose turn asks (`None` outside a conversation).
    pub conversation_id: Option<ConversationId>,
    /// The turn that asks.
    pub turn_id: Option<TurnId>,
    /// The command would run without the sandbox (the kernel has no Landlock): the
    /// person should know before allowing it.
    pub unconfined: bool,
}

impl<'a> ConfirmationRequest<'a> {
    /// A request to run `command` for the given conversation and turn.
    #[must_use]
    pub fn new(
        command: &'a str,
        conversation_id: Option<ConversationId>,
        turn_id: Option<TurnId>,
    ) -> Self {
        Self {
            command,
            conversation_id,
            turn_id,
            unconfined: false,
        }
    }

    /// The same request, for running without the sandbox.
    #[must_use]
    pub fn unconfined(mut self) -> Self {
        self.unconfined = true;
        self
    }
}

/// Asks the person whether a command may run (`requireCommandConfirmation`).
///
/// Implemented by the host: the chat REPL prompts `Allow? [y/N]`, the web app shows a
/// dialog on the conversation's page. Anything but an explicit yes within the timeout
/// is a no.
#[async_trait]
pub trait CommandConfirmer: Send + Sync {
    /// Shows the request's command and waits at most `timeout` for the answer; `true`
    /// only when the person allowed it.
    async fn confirm(&self, request: &ConfirmationRequest<'_>, timeout: Duration) -> bool;
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
