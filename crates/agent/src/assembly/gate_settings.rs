//! What the gate every tool call passes ([`PermissionGate`]) is made from:
//! agent.json's `permissions` with terminal.json's command keys mapped onto them,
//! asking the assembly's confirmer.

use std::sync::Arc;
use std::time::Duration;

use smallebot_application::ports::{CommandConfirmer, Hooks};
use smallebot_core::repository::Store;
use smallebot_core::rules::permission::PermissionRules;

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
    /// The gate asking `confirmer`, running `hooks` around each call, keeping the
    /// grants people give in `store`.
    pub(super) fn gate(
        self,
        confirmer: Arc<dyn CommandConfirmer>,
        hooks: Option<Arc<dyn Hooks>>,
        store: Arc<dyn Store>,
    ) -> Arc<PermissionGate> {
        let gate = PermissionGate::new(self.rules, confirmer)
            .with_timeout(self.timeout)
            .with_grant_store(store);
        Arc::new(match hooks {
            Some(hooks) => gate.with_hooks(hooks),
            None => gate,
        })
    }
}
