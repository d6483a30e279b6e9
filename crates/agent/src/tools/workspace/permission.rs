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
    normalized(path).map(|path| CallView::new(CallSubject::path(tool, &path)))
}

/// What the permission gate sees of a recursive read (`GrepContent`, `ListFiles`) of
/// `path` (`None`: the whole workspace): the directory and everything under it, so a
/// rule denying `secrets/**` stops a search of the root, and only a rule covering all
/// of it (`docs/**` for `docs`) allows it.
pub(super) fn tree_permission(tool: &str, path: Option<&str>) -> Result<CallView, ToolOutcome> {
    normalized(path).map(|dir| CallView::new(CallSubject::tree(tool, &dir)))
}

/// `path` (`None`: the root) workspace-relative and normalized, or the refusal of a
/// path refused on its face.
fn normalized(path: Option<&str>) -> Result<String, ToolOutcome> {
    check_relative_path(path.unwrap_or(""))
        .map(|normalized| normalized.to_relative_string())
        .map_err(|error| failure(WorkspaceError::Refused(error)))
}
