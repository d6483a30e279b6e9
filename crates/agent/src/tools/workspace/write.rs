//! `WriteFile`, `AppendFile` and `CreateDirectory`: changes inside the workspace.

use std::io::{Read as _, Write};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};

use super::beneath::{self, Access};
use super::resolve::{Resolved, Workspace, WorkspaceError};
use super::run::{failure, run_blocking};
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
        "WriteFile"
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::MUTATING
    }

    fn written_paths(&self, args: &WriteFileArgs) -> Vec<String> {
        self.workspace.written_path(&args.path)
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
        "AppendFile"
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::MUTATING
    }

    fn written_paths(&self, args: &AppendFileArgs) -> Vec<String> {
        self.workspace.written_path(&args.path)
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

/// Refuses a target that is the root, a directory or not a regular file.
fn check_file_target(resolved: &Resolved) -> Result<(), ToolOutcome> {
    let shown = resolved.display();
    if resolved.is_root() {
        return Err(ToolOutcome::error(
            "Error: the path is the workspace root itself; give a file path, e.g. 'notes/todo.md'",
        ));
    }
    if !resolved.exists() {
        return Ok(());
    }
    match std::fs::metadata(resolved.path()) {
        Ok(metadata) if metadata.is_dir() => Err(ToolOutcome::error(format!(
            "Error: '{shown}' is a directory; give the path of a file inside it, e.g. \
             '{shown}/notes.md'"
        ))),
        Ok(metadata) if !metadata.is_file() => Err(ToolOutcome::error(format!(
            "Error: '{shown}' is not a regular file (a device, socket or pipe); write to a \
             regular file instead"
        ))),
        Ok(_) => Ok(()),
        Err(error) => Err(failure(WorkspaceError::io("examine", shown, error))),
    }
}

fn write(workspace: &Workspace, path: &str, content: &str, mode: Mode) -> ToolOutcome {
    let resolved = match workspace.resolve(path) {
        Ok(resolved) => resolved,
        Err(error) => return failure(error),
    };
    if let Err(outcome) = check_file_target(&resolved) {
        return outcome;
    }
    let shown = resolved.display();
    let real = resolved.path();
    let io = |action, error| failure(WorkspaceError::io(action, shown, error));
    let before = if resolved.exists() {
        match std::fs::metadata(&real) {
            Ok(metadata) => Some(metadata.len()),
            Err(error) => return io("examine", error),
        }
    } else {
        let parent = resolved.relative().rsplit_once('/').map_or("", |(p, _)| p);
        if let Some(checked) = real.parent()
            && let Err(error) = beneath::create_dirs(resolved.root(), parent, checked)
        {
            let action = "create the parent directories of";
            return failure(WorkspaceError::opening(action, shown, error));
        }
        None
    };
    let old_text = match (mode, before) {
        (Mode::Replace, Some(size)) if size <= DIFF_MAX_BYTES => old_text(&resolved),
        _ => None,
    };
    let access = match mode {
        Mode::Replace => Access::Replace,
        Mode::Append => Access::Append,
    };
    let written = beneath::open(resolved.root(), resolved.relative(), &real, access)
        .map_err(|error| WorkspaceError::opening("write", shown, error))
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
fn old_text(resolved: &Resolved) -> Option<String> {
    let file = beneath::open(
        resolved.root(),
        resolved.relative(),
        &resolved.path(),
        Access::Read,
    )
    .ok()?;
    let mut bytes = Vec::new();
    file.take(DIFF_MAX_BYTES + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > DIFF_MAX_BYTES {
        return None;
    }
    String::from_utf8(bytes).ok()
}

#[async_trait]
impl TypedTool for CreateDirectory {
    type Args = CreateDirectoryArgs;

    fn name(&self) -> &str {
        "CreateDirectory"
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::MUTATING
    }

    fn written_paths(&self, args: &CreateDirectoryArgs) -> Vec<String> {
        self.workspace.written_path(&args.path)
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
    let real = resolved.path();
    if resolved.exists() {
        return if real.is_dir() {
            ToolOutcome::ok(format!("Directory '{shown}' already exists."))
        } else {
            ToolOutcome::error(format!(
                "Error: '{shown}' already exists and is a file, not a directory; choose \
                 another name"
            ))
        };
    }
    match beneath::create_dirs(resolved.root(), resolved.relative(), &real) {
        Ok(()) => ToolOutcome::ok(format!("Created directory '{shown}'.")),
        Err(error) => failure(WorkspaceError::opening(
            "create the directory",
            shown,
            error,
        )),
    }
}
