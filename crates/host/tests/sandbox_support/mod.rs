//! Shared by the sandbox tests: a shell tool running through this binary's helper
//! mode, one call of it, and the Landlock check that skips (or, with
//! `SMALLEBOT_REQUIRE_LANDLOCK` set as in CI, fails) where the kernel lacks it.
#![allow(clippy::unwrap_used, dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use smallebot_agent::config::TerminalSettings;
use smallebot_agent::tools::{ExecuteCommand, ToolRegistry, Workspace};
use smallebot_application::ports::{
    CommandConfirmer, ToolContext, ToolExecutor, ToolInvocation, ToolOutcome,
};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_sandbox::{CommandSandbox, probe};
use tokio_util::sync::CancellationToken;

/// What the test homes' files hold; no command may print it.
pub const SECRET: &str = "top-secret-4711";

/// This binary: its `main` runs the sandbox helper.
pub fn helper() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_smallebot"))
}

/// Whether the kernel has Landlock; says SKIPPED once when not (and fails when
/// `SMALLEBOT_REQUIRE_LANDLOCK` is set).
pub fn landlock_or_skip() -> bool {
    if probe().is_available() {
        return true;
    }
    assert!(
        std::env::var_os("SMALLEBOT_REQUIRE_LANDLOCK").is_none(),
        "SMALLEBOT_REQUIRE_LANDLOCK is set but this kernel has no Landlock: {:?}",
        probe()
    );
    eprintln!(
        "SKIPPED: sandbox tests need Landlock, which this kernel lacks ({:?})",
        probe()
    );
    false
}

/// `ExecuteCommand` in `workspace` with `settings`, through `sandbox`, asking
/// `confirmer`.
pub fn shell(
    workspace: &Path,
    settings: TerminalSettings,
    sandbox: CommandSandbox,
    confirmer: Arc<dyn CommandConfirmer>,
) -> ToolRegistry {
    let tool = ExecuteCommand::new(settings, Workspace::new(workspace.to_path_buf()), confirmer)
        .unwrap()
        .with_sandbox(Arc::new(sandbox));
    ToolRegistry::new().with(Arc::new(tool))
}

/// Runs `command` through `registry`'s `ExecuteCommand` in a turn.
pub async fn call(registry: &ToolRegistry, command: &str) -> ToolOutcome {
    let invocation = ToolInvocation {
        call_id: "call_1".into(),
        name: "ExecuteCommand".into(),
        arguments: serde_json::json!({ "command": command }).to_string(),
    };
    let context = ToolContext::in_turn(
        ConversationId::new(),
        TurnId::new(),
        CancellationToken::new(),
    );
    registry.execute(&invocation, &context).await
}
