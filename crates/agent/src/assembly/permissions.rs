//! The assembly's permission setters: the rules every tool call is decided by, the
//! hooks, who answers the questions, how long they have (the gate itself: `gate_settings.rs`).

use std::sync::Arc;
use std::time::Duration;

use smallebot_application::ports::{CommandConfirmer, Hooks};
use smallebot_core::rules::permission::PermissionRules;

use super::AgentAssembly;
use crate::tools::HookRunner;

impl AgentAssembly {
    /// The permission rules every tool call is decided by (an assembly from a home has
    /// agent.json's, with terminal.json's `commandWhitelist` and
    /// `requireCommandConfirmation` mapped onto them).
    #[must_use]
    pub fn permissions(mut self, rules: PermissionRules) -> Self {
        self.gate.rules = rules;
        self
    }

    /// Who answers the questions about tool calls the permission rules ask about, and
    /// about commands that would run without the sandbox (default: nobody, every such
    /// call is denied).
    #[must_use]
    pub fn confirmer(mut self, confirmer: Arc<dyn CommandConfirmer>) -> Self {
        self.confirmer = confirmer;
        self
    }

    /// The hooks run at a turn's points and around every tool call (an assembly from a
    /// home has `<home>/hooks.json`'s, when it has any).
    #[must_use]
    pub fn hooks(mut self, hooks: Arc<dyn Hooks>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// The hooks `runner` runs (as a home's hooks.json gives them), recording each run
    /// in the assembly's store; hooks given by [`AgentAssembly::hooks`] take their place.
    #[must_use]
    pub fn hook_runner(mut self, runner: HookRunner) -> Self {
        self.home_hooks = Some(runner);
        self
    }

    /// How long the person has to answer a question about a tool call (default 60 s;
    /// an assembly from a home has terminal.json's `confirmationTimeoutSeconds`).
    #[must_use]
    pub fn confirmation_timeout(mut self, timeout: Duration) -> Self {
        self.gate.timeout = timeout;
        self
    }
}
