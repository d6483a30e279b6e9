//! `ReadFile`: a window of lines of a text file, at most 1 MiB per call.

use std::io::{Read, Seek};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};

use smallebot_confined::{ConfinedError, FileKind};

use super::permission::path_permission;
use super::resolve::{Workspace, WorkspaceError};
use super::run::{failure, run_blocking};
use super::text::{Page, SNIFF_BYTES, Window, looks_binary, read_window};
use crate::tools::CallView;
use crate::tools::TypedTool;
use crate::tools::typed;

/// The most one `ReadFile` result holds, note included (the stored-result cap).
pub const READ_MAX_BYTES: usize = 1024 * 1024;

/// Room kept under [`READ_MAX_BYTES`] for the continuation note.
const NOTE_RESERVE: usize = 1024;

/// Once the window is full, how many more bytes are scanned to count the file's lines.
const COUNT_BUDGET: u64 = 256 * 1024 * 1024;

/// Reads a text file of the workspace: `path`, `offset` (lines to skip), `limit` (lines).
#[derive(Debug, Clone)]
pub struct ReadFile {
    workspace: Workspace,
}

impl ReadFile {
    /// The name the model calls it by.
    pub const NAME: &'static str = "ReadFile";

    /// The tool over `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

/// `ReadFile`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    /// File path relative to the workspace root, e.g. 'notes/todo.md'.
    pub path: String,
    /// Number of lines to skip from the start (default 0).
    #[serde(default, deserialize_with = "typed::lenient_u64")]
    #[schemars(with = "Option<u64>")]
    pub offset: Option<u64>,
    /// Maximum number of lines to return (default: as many as fit in 1 MiB).
    #[serde(default, deserialize_with = "typed::lenient_u64")]
    #[schemars(with = "Option<u64>", range(min = 1))]
    pub limit: Option<u64>,
}

#[async_trait]
impl TypedTool for ReadFile {
    type Args = ReadFileArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn permission(&self, args: &Self::Args) -> Result<CallView, ToolOutcome> {
        path_permission(Self::NAME, Some(args.path.as_str()))
    }

    fn description(&self) -> String {
        "Read a text file in the workspace. Returns at most 1 MiB per call; \
         use offset and limit (in lines) to page through longer files. \
         Binary files are refused."
            .into()
    }

    async fn run(&self, args: ReadFileArgs, context: &ToolContext) -> ToolOutcome {
        let ReadFileArgs {
            path,
            offset,
            limit,
        } = args;
        if limit == Some(0) {
            return ToolOutcome::error(
                "Error: ReadFile: 'limit' must be at least 1 (or left out to read as much as fits)",
            );
        }
        let workspace = self.workspace.clone();
        run_blocking(context, move || {
            read(
                &workspace,
                &path,
                offset.unwrap_or(0),
                limit.unwrap_or(u64::MAX),
            )
        })
        .await
    }
}

fn read(workspace: &Workspace, path: &str, offset: u64, limit: u64) -> ToolOutcome {
    let resolved = match workspace.resolve_existing(path) {
        Ok(resolved) => resolved,
        Err(error) => return failure(error),
    };
    let shown_path = resolved.display().to_owned();
    let io = |error| failure(WorkspaceError::io("read", &shown_path, error));
    let root = match resolved.confined() {
        Ok(root) => root,
        Err(error) => return failure(error),
    };
    // Opened beneath the root; never blocks: a pipe or device is refused unread.
    let (mut file, metadata) = match root.open_read(resolved.relative()) {
        Ok(opened) => opened,
        Err(error) => return open_refusal(&shown_path, error),
    };
    let mut sample = Vec::with_capacity(SNIFF_BYTES);
    if let Err(error) = (&mut file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut sample)
    {
        return io(error);
    }
    if looks_binary(&sample) {
        return ToolOutcome::error(format!(
            "Error: '{shown_path}' looks like a binary file ({} bytes, contains NUL bytes); \
             ReadFile reads text files only",
            metadata.len
        ));
    }
    let (page, mut text) = match read_page(&mut file, offset, limit) {
        Ok(read) => read,
        Err(error) => return io(error),
    };
    if page.total == 0 {
        return ToolOutcome::ok(format!("(the file '{shown_path}' is empty: 0 bytes)"));
    }
    if page.shown == 0 {
        return ToolOutcome::error(format!(
            "Error: offset {offset} is past the end of '{shown_path}', which has {} lines; use \
             an offset below {}",
            total_text(page.total, page.total_exact),
            page.total
        ));
    }
    if let Some(note) = page_note(&page, offset) {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&note);
    }
    ToolOutcome::ok(text)
}

/// What the model is told when the file could not be opened for reading.
fn open_refusal(shown_path: &str, error: ConfinedError) -> ToolOutcome {
    match error {
        ConfinedError::NotRegular {
            kind: FileKind::Dir,
            ..
        } => ToolOutcome::error(format!(
            "Error: '{shown_path}' is a directory; call ListFiles with this path to see its \
             contents, or ReadFile with a file inside it"
        )),
        ConfinedError::NotRegular { kind, .. } => ToolOutcome::error(format!(
            "Error: '{shown_path}' is not a regular file ({kind}); ReadFile reads regular text \
             files only"
        )),
        error => failure(WorkspaceError::confined("read", shown_path, error)),
    }
}

/// The lines from `offset`, at most `limit`, within the size a call may return, and
/// their text. Invalid UTF-8 shows as U+FFFD (up to 3 bytes for 1): if that overflows
/// the cap, the window is read again with a third of it.
fn read_page(file: &mut std::fs::File, offset: u64, limit: u64) -> std::io::Result<(Page, String)> {
    let cap = READ_MAX_BYTES - NOTE_RESERVE;
    let mut page = Page::default();
    let mut text = String::new();
    for window_cap in [cap, cap / 3] {
        let window = Window {
            offset,
            limit,
            cap: window_cap,
            count_budget: COUNT_BUDGET,
        };
        file.rewind()?;
        page = read_window(&*file, window)?;
        text = String::from_utf8_lossy(&page.text).into_owned();
        if text.len() <= cap {
            break;
        }
    }
    Ok((page, text))
}

/// The note after a page that is not the whole file: how to go on, or that the end
/// was reached.
fn page_note(page: &Page, offset: u64) -> Option<String> {
    let last = offset + page.shown;
    let total = total_text(page.total, page.total_exact);
    if page.cut_line {
        Some(format!(
            "[truncated: line {last} is longer than one call can return (1 MiB); showing \
             its first {} bytes. Call ReadFile with offset={last} to continue with the next \
             line]",
            page.text.len()
        ))
    } else if last < page.total || !page.total_exact {
        Some(format!(
            "[truncated: showing lines {}–{last} of {total}; call ReadFile with offset={last} \
             to continue]",
            offset + 1
        ))
    } else if offset > 0 {
        Some(format!(
            "[showing lines {}–{last} of {total}: end of file]",
            offset + 1
        ))
    } else {
        None
    }
}

/// The line count, or "more than N" when counting stopped early.
fn total_text(total: u64, exact: bool) -> String {
    if exact {
        total.to_string()
    } else {
        format!("more than {total}")
    }
}
