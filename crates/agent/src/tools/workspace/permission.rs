//! What the permission gate sees of a workspace file tool's call.

use smallebot_application::ports::ToolOutcome;
use smallebot_core::rules::permission::CallSubject;
use smallebot_core::rules::workspace_path::check_relative_path;

use super::resolve::WorkspaceError;
use super::run::failure;
use crate::tools::call_view::CallView;

/// What the permission gate sees of a file tool's call on `path` (`None`: the root):
/// the workspace-relative path, normalized (`docs/./a/../b.md` is `docs/b.md`), which
/// the rules' globs match. A path refused on its face (absolute, `..` above the root)
/// is refused here, as the tool would refuse it.
pub(super) fn path_permission(tool: &str, path: Option<&str>) -> Result<CallView, ToolOutcome> {
    match check_relative_path(path.unwrap_or("")) {
        Ok(normalized) => Ok(CallView::new(CallSubject::path(
            tool,
            &normalized.to_relative_string(),
        ))),
        Err(error) => Err(failure(WorkspaceError::Refused(error))),
    }
}
