//! Running file work off the async threads, and turning failures into outcomes.

use smallebot_application::ports::{ToolContext, ToolOutcome};
use smallebot_core::entities::ToolCallStatus;

use super::resolve::WorkspaceError;

/// The outcome for a workspace failure: `Denied` for confinement refusals, `Error`
/// otherwise; the text starts with `Error: `.
pub(crate) fn failure(error: WorkspaceError) -> ToolOutcome {
    let status = if error.is_refusal() {
        ToolCallStatus::Denied
    } else {
        ToolCallStatus::Error
    };
    ToolOutcome {
        content: format!("Error: {error}"),
        status,
    }
}

/// Runs blocking file work on the blocking pool; answers `Cancelled` as soon as the turn
/// is cancelled (long walks also watch the token and stop themselves).
pub(crate) async fn run_blocking<F>(context: &ToolContext, work: F) -> ToolOutcome
where
    F: FnOnce() -> ToolOutcome + Send + 'static,
{
    let task = tokio::task::spawn_blocking(work);
    tokio::select! {
        biased;
        () = context.cancel.cancelled() => ToolOutcome {
            content: "Cancelled: the turn was cancelled before the file operation finished."
                .into(),
            status: ToolCallStatus::Cancelled,
        },
        joined = task => joined.unwrap_or_else(|error| {
            ToolOutcome::error(format!(
                "Error: the file operation stopped unexpectedly ({error}); try again"
            ))
        }),
    }
}
