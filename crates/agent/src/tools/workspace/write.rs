//! `WriteFile`, `AppendFile` and `CreateDirectory`: changes inside the workspace.

use std::io::Write;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};

use smallebot_confined::{Access, ConfinedError, Root};

use super::permission::path_permission;
use super::resolve::{Resolved, Workspace, WorkspaceError};
use super::run::{failure, run_blocking};
use crate::tools::CallView;
use crate::tools::TypedTool;
use smallebot_core::rules::file_diff;

/// A replaced file and its new content are compared (and the result shows the diff)
/// only up to this size each: a diff of larger texts is too long to read anyway.
const DIFF_MAX_BYTES: u64 = 256 * 1024;

/// How a file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Replace,
    Append,
}

/// Writes a whole file (`path`, `content`), creating parent directories as needed.
#[derive(Debug, Clone)]
pub struct WriteFile {
    workspace: Workspace,
}

impl WriteFile {
    /// The name the model calls it by.
    pub const NAME: &'static str = "WriteFile";

    /// The tool over `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

/// Appends to a file (`path`, `content`), creating it and its parents as needed.
#[derive(Debug, Clone)]
pub struct AppendFile {
    workspace: Workspace,
}

impl AppendFile {
    /// The name the model calls it by.
    pub const NAME: &'static str = "AppendFile";

    /// The tool over `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

/// Creates a directory and its parents (`path`), like `mkdir -p`.
#[derive(Debug, Clone)]
pub struct CreateDirectory {
    workspace: Workspace,
}

impl CreateDirectory {
    /// The name the model calls it by.
    pub const NAME: &'static str = "CreateDirectory";

    /// The tool over `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

/// `WriteFile`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteFileArgs {
    /// File path relative to the workspace root, e.g. 'notes/todo.md'.
    pub path: String,
    /// The complete new content of the file.
    pub content: String,
}

/// `AppendFile`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AppendFileArgs {
    /// File path relative to the workspace root, e.g. 'notes/todo.md'.
    pub path: String,
    /// The text to append.
    pub content: String,
}

/// `CreateDirectory`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateDirectoryArgs {
    /// Directory path relative to the workspace root, e.g. 'notes/2024'.
    pub path: String,
}

async fn write_call(
    workspace: &Workspace,
    path: String,
    content: String,
    context: &ToolContext,
    mode: Mode,
) -> ToolOutcome {
    let workspace = workspace.clone();
    run_blocking(context, move || write(&workspace, &path, &content, mode)).await
}

#[async_trait]
impl TypedTool for WriteFile {
    type Args = WriteFileArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::MUTATING
    }

    fn written_paths(&self, args: &WriteFileArgs) -> Vec<String> {
        self.workspace.written_path(&args.path)
    }

    fn permission(&self, args: &Self::Args) -> Result<CallView, ToolOutcome> {
        path_permission(Self::NAME, Some(args.path.as_str()))
    }

    fn description(&self) -> String {
        "Write a text file in the workspace, replacing it if it exists. Parent \
         directories are created as needed."
            .into()
    }

    async fn run(&self, args: WriteFileArgs, context: &ToolContext) -> ToolOutcome {
        write_call(
            &self.workspace,
            args.path,
            args.content,
            context,
            Mode::Replace,
        )
        .await
    }
}

#[async_trait]
impl TypedTool for AppendFile {
    type Args = AppendFileArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::MUTATING
    }

    fn written_paths(&self, args: &AppendFileArgs) -> Vec<String> {
        self.workspace.written_path(&args.path)
    }

    fn permission(&self, args: &Self::Args) -> Result<CallView, ToolOutcome> {
        path_permission(Self::NAME, Some(args.path.as_str()))
    }

    fn description(&self) -> String {
        "Append text to the end of a file in the workspace, creating the file (and its \
         parent directories) if it does not exist. No newline is added."
            .into()
    }

    async fn run(&self, args: AppendFileArgs, context: &ToolContext) -> ToolOutcome {
        write_call(
            &self.workspace,
            args.path,
            args.content,
            context,
            Mode::Append,
        )
        .await
    }
}

/// Refuses a target that is the root, a directory or not a regular file; the size of
/// the file it replaces (`None`: a new file).
fn check_file_target(root: &Root, resolved: &Resolved) -> Result<Option<u64>, ToolOutcome> {
    let shown = resolved.display();
    if resolved.is_root() {
        return Err(ToolOutcome::error(
            "Error: the path is the workspace root itself; give a file path, e.g. 'notes/todo.md'",
        ));
    }
    if !resolved.exists() {
        return Ok(None);
    }
    match root.metadata(resolved.relative()) {
        Ok(metadata) if metadata.is_dir() => Err(ToolOutcome::error(format!(
            "Error: '{shown}' is a directory; give the path of a file inside it, e.g. \
             '{shown}/notes.md'"
        ))),
        Ok(metadata) if !metadata.is_file() => Err(ToolOutcome::error(format!(
            "Error: '{shown}' is not a regular file ({}); write to a regular file instead",
            metadata.kind
        ))),
        Ok(metadata) => Ok(Some(metadata.len)),
        Err(error) => Err(failure(WorkspaceError::confined("examine", shown, error))),
    }
}

fn write(workspace: &Workspace, path: &str, content: &str, mode: Mode) -> ToolOutcome {
    let resolved = match workspace.resolve(path) {
        Ok(resolved) => resolved,
        Err(error) => return failure(error),
    };
    let root = match resolved.confined() {
        Ok(root) => root,
        Err(error) => return failure(error),
    };
    let before = match check_file_target(&root, &resolved) {
        Ok(before) => before,
        Err(outcome) => return outcome,
    };
    let shown = resolved.display();
    if before.is_none() {
        let parent = resolved.relative().rsplit_once('/').map_or("", |(p, _)| p);
        if let Err(error) = root.create_dirs(parent) {
            let action = "create the parent directories of";
            return failure(WorkspaceError::confined(action, shown, error));
        }
    }
    let old_text = match (mode, before) {
        (Mode::Replace, Some(size)) if size <= DIFF_MAX_BYTES => old_text(&root, &resolved),
        _ => None,
    };
    let access = match mode {
        Mode::Replace => Access::Replace,
        Mode::Append => Access::Append,
    };
    let written = root
        .open_file(resolved.relative(), access)
        .map_err(|error| WorkspaceError::confined("write", shown, error))
        .and_then(|mut file| {
            file.write_all(content.as_bytes())
                .and_then(|()| file.flush())
                .map_err(|error| WorkspaceError::io("write", shown, error))
        });
    if let Err(error) = written {
        return failure(error);
    }
    let bytes = content.len();
    let line = match (mode, before) {
        (Mode::Replace, None) => format!("Wrote {bytes} bytes to '{shown}' (new file)."),
        (Mode::Replace, Some(old)) => {
            format!("Wrote {bytes} bytes to '{shown}' (replaced the previous {old} bytes).")
        }
        (Mode::Append, None) => format!("Appended {bytes} bytes to '{shown}' (new file)."),
        (Mode::Append, Some(old)) => format!(
            "Appended {bytes} bytes to '{shown}' (now {} bytes).",
            old + bytes as u64
        ),
    };
    let diff = old_text
        .filter(|_| bytes as u64 <= DIFF_MAX_BYTES)
        .and_then(|old| file_diff::unified(shown, Some(&old), content));
    ToolOutcome::ok(match diff {
        Some(block) => format!("{line}\n\n{block}"),
        None => line,
    })
}

/// The text of the file about to be replaced, when it is UTF-8 and at most
/// [`DIFF_MAX_BYTES`] long; `None` otherwise or when it cannot be read (the write goes
/// on without a diff).
fn old_text(root: &Root, resolved: &Resolved) -> Option<String> {
    let bytes = root.read(resolved.relative(), DIFF_MAX_BYTES).ok()?;
    String::from_utf8(bytes).ok()
}

#[async_trait]
impl TypedTool for CreateDirectory {
    type Args = CreateDirectoryArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::MUTATING
    }

    fn written_paths(&self, args: &CreateDirectoryArgs) -> Vec<String> {
        self.workspace.written_path(&args.path)
    }

    fn permission(&self, args: &Self::Args) -> Result<CallView, ToolOutcome> {
        path_permission(Self::NAME, Some(args.path.as_str()))
    }

    fn description(&self) -> String {
        "Create a directory in the workspace, with any missing parents \
         (like mkdir -p). Succeeds if it already exists."
            .into()
    }

    async fn run(&self, args: CreateDirectoryArgs, context: &ToolContext) -> ToolOutcome {
        let path = args.path;
        let workspace = self.workspace.clone();
        run_blocking(context, move || create_directory(&workspace, &path)).await
    }
}

fn create_directory(workspace: &Workspace, path: &str) -> ToolOutcome {
    let resolved = match workspace.resolve(path) {
        Ok(resolved) => resolved,
        Err(error) => return failure(error),
    };
    let shown = resolved.display();
    let root = match resolved.confined() {
        Ok(root) => root,
        Err(error) => return failure(error),
    };
    if resolved.exists() {
        return match root.metadata(resolved.relative()) {
            Ok(metadata) if metadata.is_dir() => {
                ToolOutcome::ok(format!("Directory '{shown}' already exists."))
            }
            Ok(_) => ToolOutcome::error(format!(
                "Error: '{shown}' already exists and is a file, not a directory; choose \
                 another name"
            )),
            Err(error) => failure(WorkspaceError::confined("examine", shown, error)),
        };
    }
    match root.create_dirs(resolved.relative()) {
        Ok(()) => ToolOutcome::ok(format!("Created directory '{shown}'.")),
        Err(ConfinedError::NotDirectory { path }) => ToolOutcome::error(format!(
            "Error: '{path}' is a file, not a directory, so '{shown}' cannot be created \
             inside it; choose another path"
        )),
        Err(error) => failure(WorkspaceError::confined(
            "create the directory",
            shown,
            error,
        )),
    }
}
