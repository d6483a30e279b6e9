//! The confirmation port: asking the person whether a command may run.

use std::time::Duration;

use async_trait::async_trait;

/// Asks the person whether a command may run (`requireCommandConfirmation`).
///
/// Implemented by the host: the chat REPL prompts `Allow? [y/N]`, a web host would show
/// a dialog. Anything but an explicit yes within the timeout is a no.
#[async_trait]
pub trait CommandConfirmer: Send + Sync {
    /// Shows `command` and waits at most `timeout` for the answer; `true` only when the
    /// person allowed it.
    async fn confirm(&self, command: &str, timeout: Duration) -> bool;
}

/// Denies every command: for hosts without a person to ask (`smallebot run` without a
/// terminal).
#[derive(Debug, Default, Clone, Copy)]
pub struct DenyAll;

#[async_trait]
impl CommandConfirmer for DenyAll {
    async fn confirm(&self, _command: &str, _timeout: Duration) -> bool {
        false
    }
}
