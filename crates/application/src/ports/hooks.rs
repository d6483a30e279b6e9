//! The hooks port: the owner's programs run at fixed points of a turn (hooks.json).

use async_trait::async_trait;
use smallebot_core::entities::HookRun;
use smallebot_core::rules::hook::{HookEvent, HookInput, HookResult};
use tokio_util::sync::CancellationToken;

/// Runs the hooks configured for an event; the agent crate implements it over
/// `<home>/hooks.json`.
#[async_trait]
pub trait Hooks: Send + Sync {
    /// Whether any hook runs for `event` (for tool events: for the tool `tool`), so a
    /// caller can skip building the input.
    fn wants(&self, event: HookEvent, tool: Option<&str>) -> bool;

    /// Runs every hook of `event` that applies (for tool events: to `input.tool_name`)
    /// in parallel, each within its timeout, all stopped when `cancel` fires, and
    /// returns what they mean together. The directory in `input.cwd` is filled in by
    /// the implementation.
    async fn run(
        &self,
        event: HookEvent,
        input: HookInput,
        cancel: &CancellationToken,
    ) -> HookResult;
}

/// What the hooks of one tool call did, as the tool path reports it for the call's
/// events (its card's hook lines, the person's warnings); clones share it.
#[derive(Debug, Clone, Default)]
pub struct CallHooks(std::sync::Arc<std::sync::Mutex<CallHookReport>>);

/// The runs and warnings reported on one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallHookReport {
    /// The hooks' runs, in the order their events ran.
    pub runs: Vec<HookRun>,
    /// The warnings of the events whose hooks failed, one per event.
    pub warnings: Vec<String>,
}

impl CallHooks {
    /// Adds the runs and the warning of `result` (one event's hooks).
    pub fn report(&self, result: &HookResult) {
        let mut all = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        all.runs.extend(result.runs.iter().cloned());
        all.warnings.extend(result.warning.iter().cloned());
    }

    /// What was reported so far, taken out.
    #[must_use]
    pub fn take(&self) -> CallHookReport {
        std::mem::take(
            &mut *self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        )
    }
}
