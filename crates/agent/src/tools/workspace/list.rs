//! `ListFiles`: the files and directories under a workspace directory, recursively.

use std::collections::VecDeque;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};
use tokio_util::sync::CancellationToken;

use smallebot_confined::FileKind;

use super::permission::tree_permission;
use super::resolve::{Workspace, WorkspaceError};
use super::run::{failure, run_blocking};
use crate::tools::CallView;
use crate::tools::TypedTool;

/// The most entries one `ListFiles` call returns.
pub const LIST_MAX_ENTRIES: usize = 1000;

/// Lists a workspace directory recursively (`path`, default the root), breadth first so
/// the top levels come before deep ones when the listing is cut.
#[derive(Debug, Clone)]
pub struct ListFiles {
    workspace: Workspace,
}

impl ListFiles {
    /// The name the model calls it by.
    pub const NAME: &'static str = "ListFiles";

    /// The tool over `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

/// `ListFiles`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListFilesArgs {
    /// Directory relative to the workspace root (default: the root).
    #[serde(default)]
    pub path: Option<String>,
}

#[async_trait]
impl TypedTool for ListFiles {
    type Args = ListFilesArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn permission(&self, args: &Self::Args) -> Result<CallView, ToolOutcome> {
        tree_permission(Self::NAME, args.path.as_deref())
    }

    fn description(&self) -> String {
        format!(
            "List files and directories in the workspace, recursively (directories end \
             with '/', files show their size, symbolic links are not followed). At most \
             {LIST_MAX_ENTRIES} entries; list a subdirectory to see more."
        )
    }

    async fn run(&self, args: ListFilesArgs, context: &ToolContext) -> ToolOutcome {
        let path = args.path.unwrap_or_default();
        let workspace = self.workspace.clone();
        let cancel = context.cancel.clone();
        run_blocking(context, move || list(&workspace, &path, &cancel)).await
    }
}

/// One listed entry: its path relative to the workspace root and how it is shown.
struct Entry {
    key: Vec<String>,
    line: String,
}

fn list(workspace: &Workspace, path: &str, cancel: &CancellationToken) -> ToolOutcome {
    let resolved = match workspace.resolve_existing(path) {
        Ok(resolved) => resolved,
        Err(error) => return failure(error),
    };
    let shown = resolved.display().to_owned();
    let root = match resolved.confined() {
        Ok(root) => root,
        Err(error) => return failure(error),
    };
    match root.metadata(resolved.relative()) {
        Ok(metadata) if !metadata.is_dir() => {
            return ToolOutcome::ok(format!(
                "'{shown}' is a file ({} bytes), not a directory; call ReadFile to read it.",
                metadata.len
            ));
        }
        Ok(_) => {}
        Err(error) => return failure(WorkspaceError::confined("list", &shown, error)),
    }
    let prefix = if resolved.is_root() {
        String::new()
    } else {
        format!("{shown}/")
    };
    let mut entries: Vec<Entry> = Vec::new();
    let mut unreadable: Vec<String> = Vec::new();
    let mut queue: VecDeque<String> = VecDeque::from([prefix]);
    let mut cut = false;
    'walk: while let Some(prefix) = queue.pop_front() {
        if cancel.is_cancelled() {
            break;
        }
        let relative_dir = prefix.trim_end_matches('/');
        let children = match root.read_dir(relative_dir) {
            Ok(children) => children,
            Err(error) => {
                if prefix.is_empty() || prefix == format!("{shown}/") {
                    return failure(WorkspaceError::confined("list", &shown, error));
                }
                unreadable.push(format!("{prefix} ({error})"));
                continue;
            }
        };
        for child in children {
            if entries.len() >= LIST_MAX_ENTRIES {
                cut = true;
                break 'walk;
            }
            let relative = format!("{prefix}{}", child.name);
            let key = relative.split('/').map(str::to_owned).collect();
            let line = match child.kind {
                FileKind::Dir => {
                    queue.push_back(format!("{relative}/"));
                    format!("{relative}/")
                }
                FileKind::Link => match &child.target {
                    Some(target) => format!("{relative} -> {target} (symbolic link)"),
                    None => format!("{relative} (symbolic link)"),
                },
                FileKind::File => match child.size {
                    Some(size) => format!("{relative} ({size} bytes)"),
                    None => relative,
                },
                _ => format!("{relative} (special file)"),
            };
            entries.push(Entry { key, line });
        }
    }
    if entries.is_empty() && unreadable.is_empty() {
        return ToolOutcome::ok(format!("The directory '{shown}' is empty."));
    }
    entries.sort_by(|a, b| a.key.cmp(&b.key));
    let mut out = format!(
        "Contents of '{shown}' ({} entries; directories end with '/', paths are relative to \
         the workspace root):\n",
        entries.len()
    );
    for entry in &entries {
        out.push_str(&entry.line);
        out.push('\n');
    }
    for dir in &unreadable {
        out.push_str(&format!("[could not list {dir}]\n"));
    }
    if cut {
        out.push_str(&format!(
            "[listing stopped at {LIST_MAX_ENTRIES} entries; call ListFiles with a \
             subdirectory path to see more]\n"
        ));
    }
    if cancel.is_cancelled() {
        out.push_str("[listing stopped: the turn was cancelled]\n");
    }
    ToolOutcome::ok(out)
}
