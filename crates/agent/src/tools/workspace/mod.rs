//! The workspace file tools: `ReadFile`, `WriteFile`, `AppendFile`, `ListFiles`,
//! `CreateDirectory` and `GrepContent`, confined to one directory (docs/design.md §8).
//!
//! Every path is checked by [`Workspace`] (lexical rule, then canonicalization with
//! symlinks followed) for the messages; files are then opened, listed, and directories
//! created, only through `smallebot_confined::Root` beneath the root, the kernel
//! refusing to leave it (links inside the workspace are followed). Only regular files
//! are read or written.
//! Blocking file work runs on Tokio's blocking pool.

mod grep;
mod list;
mod permission;
mod read;
mod resolve;
mod run;
mod text;
mod write;

use std::path::PathBuf;
use std::sync::Arc;

pub use grep::{
    GREP_DEFAULT_RESULTS, GREP_LINE_CHARS, GREP_MAX_FILE_BYTES, GREP_MAX_FILES, GREP_MAX_RESULTS,
    GREP_REGEX_SIZE_LIMIT, GrepContent,
};
pub use list::{LIST_MAX_ENTRIES, ListFiles};
pub use read::{READ_MAX_BYTES, ReadFile};
pub use resolve::{Resolved, Workspace, WorkspaceError};
pub(crate) use run::run_blocking;
pub use write::{AppendFile, CreateDirectory, WriteFile};

use super::Tool;

/// The six workspace file tools over the directory `root` (`<home>/workspace`, created
/// on first use).
#[must_use]
pub fn workspace_tools(root: PathBuf) -> Vec<Arc<dyn Tool>> {
    let workspace = Workspace::new(root);
    vec![
        Arc::new(ReadFile::new(workspace.clone())),
        Arc::new(WriteFile::new(workspace.clone())),
        Arc::new(AppendFile::new(workspace.clone())),
        Arc::new(ListFiles::new(workspace.clone())),
        Arc::new(CreateDirectory::new(workspace.clone())),
        Arc::new(GrepContent::new(workspace)),
    ]
}
