//! The permission rules of an assembly and the gate every tool call passes
//! ([`PermissionGate`]): agent.json's `permissions` with terminal.json's command keys
//! mapped onto them, asking the assembly's confirmer.

use std::sync::Arc;
use std::time::Duration;

use smallebot_application::ports::CommandConfirmer;
use smallebot_core::rules::permission::PermissionRules;

use super::AgentAssembly;
use crate::tools::{DEFAULT_CONFIRMATION_TIMEOUT, PermissionGate};

/// What the gate is made from (kept until `build`, so the confirmer can still be chosen).
pub(super) struct GateSettings {
    /// The rules (none: every call allowed unless its tool asks first).
    pub(super) rules: PermissionRules,
    /// How long the person has to answer.
    pub(super) timeout: Duration,
}

impl Default for GateSettings {
    fn default() -> Self {
        Self {
            rules: PermissionRules::default(),
            timeout: DEFAULT_CONFIRMATION_TIMEOUT,
        }
    }
}

impl GateSettings {
    /// The gate asking `confirmer`.
    pub(super) fn gate(self, confirmer: Arc<dyn CommandConfirmer>) -> Arc<PermissionGate> {
        Arc::new(PermissionGate::new(self.rules, confirmer).with_timeout(self.timeout))
    }
}

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

    /// How long the person has to answer a question about a tool call (default 60 s;
    /// an assembly from a home has terminal.json's `confirmationTimeoutSeconds`).
    #[must_use]
    pub fn confirmation_timeout(mut self, timeout: Duration) -> Self {
        self.gate.timeout = timeout;
        self
    }
}
