//! The hooks port: the owner's programs run at fixed points of a turn (hooks.json).

use async_trait::async_trait;
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
