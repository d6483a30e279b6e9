//! `GrepContent`: regular-expression search over the workspace's text files.

use async_trait::async_trait;
use regex::{Regex, RegexBuilder};
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};
use smallebot_core::rules::truncation::truncate_with_marker;
use tokio_util::sync::CancellationToken;

use smallebot_confined::{ConfinedError, FileKind, Root};

use super::permission::tree_permission;
use super::resolve::{Workspace, WorkspaceError};
use super::run::{failure, run_blocking};
use super::text::{SNIFF_BYTES, looks_binary};
use crate::tools::CallView;
use crate::tools::typed::{self, TypedTool};

/// Results returned when `maxResults` is not given.
pub const GREP_DEFAULT_RESULTS: u64 = 50;
/// The most results one call returns (`maxResults` is clamped to 1..=this).
pub const GREP_MAX_RESULTS: u64 = 500;
/// The compiled size limit of a pattern, in bytes (the `regex` crate's `size_limit`).
pub const GREP_REGEX_SIZE_LIMIT: usize = 1024 * 1024;
/// Files larger than this are skipped.
pub const GREP_MAX_FILE_BYTES: u64 = 10 * 1024 * 1024;
/// The most files one call searches.
pub const GREP_MAX_FILES: usize = 20_000;
/// Each matching line is cut to this many characters.
pub const GREP_LINE_CHARS: usize = 300;

/// Searches file contents with a regular expression (`pattern`, `path?`, `maxResults?`),
/// printing `path:line: text` for each matching line.
#[derive(Debug, Clone)]
pub struct GrepContent {
    workspace: Workspace,
}

impl GrepContent {
    /// The name the model calls it by.
    pub const NAME: &'static str = "GrepContent";

    /// The tool over `workspace`.
    #[must_use]
    pub fn new(workspace: Workspace) -> Self {
        Self { workspace }
    }
}

/// `GrepContent`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrepContentArgs {
    /// Regular expression to search for, e.g. 'fn \\w+\\(' or '(?i)todo'.
    pub pattern: String,
    /// File or directory relative to the workspace root to search (default: the whole workspace).
    #[serde(default)]
    pub path: Option<String>,
    /// How many matching lines to return at most (clamped to 1..=[`GREP_MAX_RESULTS`]).
    #[serde(default, deserialize_with = "typed::lenient_u64")]
    #[schemars(
        with = "Option<u64>",
        range(min = 1, max = GREP_MAX_RESULTS),
        description = max_results_description()
    )]
    pub max_results: Option<u64>,
}

/// What the model reads about `maxResults`.
fn max_results_description() -> String {
    format!(
        "Maximum number of matching lines to return (default {GREP_DEFAULT_RESULTS}, at most \
         {GREP_MAX_RESULTS})."
    )
}

#[async_trait]
impl TypedTool for GrepContent {
    type Args = GrepContentArgs;

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
            "Search the text files of the workspace for lines matching a regular \
             expression (Rust regex syntax; prefix with (?i) to ignore case). Prints \
             'path:line: text' per match (files in name order, a directory's files before its subdirectories). Binary files, files over \
             {} MiB and symbolic links are skipped.",
            GREP_MAX_FILE_BYTES / (1024 * 1024)
        )
    }

    async fn run(&self, args: GrepContentArgs, context: &ToolContext) -> ToolOutcome {
        let GrepContentArgs {
            pattern,
            path,
            max_results,
        } = args;
        let regex = match compile(&pattern) {
            Ok(regex) => regex,
            Err(message) => return ToolOutcome::error(message),
        };
        let search = Search {
            regex,
            max_results: max_results
                .unwrap_or(GREP_DEFAULT_RESULTS)
                .clamp(1, GREP_MAX_RESULTS),
            requested: max_results,
            cancel: context.cancel.clone(),
        };
        let workspace = self.workspace.clone();
        let path = path.unwrap_or_default();
        run_blocking(context, move || search.run(&workspace, &path)).await
    }
}

/// Compiles `pattern` with bounded size; the error text says what to change.
fn compile(pattern: &str) -> Result<Regex, String> {
    if pattern.is_empty() {
        return Err(
            "Error: GrepContent: 'pattern' is empty; give a word or regular \
                    expression to search for"
                .into(),
        );
    }
    RegexBuilder::new(pattern)
        .size_limit(GREP_REGEX_SIZE_LIMIT)
        .dfa_size_limit(2 * GREP_REGEX_SIZE_LIMIT)
        .build()
        .map_err(|error| match error {
            regex::Error::CompiledTooBig(limit) => format!(
                "Error: the pattern is too large once compiled (over {limit} bytes, usually \
                 from big repetition counts like {{1000}} or long alternations); use a \
                 simpler pattern"
            ),
            other => format!(
                "Error: the pattern is not a valid regular expression; escape special \
                 characters such as ( [ . * + ? with a backslash to match them literally.\n{other}"
            ),
        })
}

/// One search's settings.
struct Search {
    regex: Regex,
    max_results: u64,
    requested: Option<u64>,
    cancel: CancellationToken,
}

/// What was found and what was skipped.
#[derive(Default)]
struct Found {
    lines: Vec<String>,
    files: usize,
    binary: usize,
    large: usize,
    links: usize,
    unreadable: usize,
    full: bool,
    too_many_files: bool,
}

impl Search {
    fn run(&self, workspace: &Workspace, path: &str) -> ToolOutcome {
        let resolved = match workspace.resolve_existing(path) {
            Ok(resolved) => resolved,
            Err(error) => return failure(error),
        };
        let shown = resolved.display().to_owned();
        let root = match resolved.confined() {
            Ok(root) => root,
            Err(error) => return failure(error),
        };
        let mut found = Found::default();
        let is_file = root
            .metadata(resolved.relative())
            .is_ok_and(|metadata| metadata.is_file());
        if is_file {
            self.search_file(&root, resolved.relative(), &shown, &mut found);
        } else {
            let prefix = if resolved.is_root() {
                String::new()
            } else {
                format!("{shown}/")
            };
            if let Err(error) = root.read_dir(resolved.relative()) {
                return failure(WorkspaceError::confined("search", &shown, error));
            }
            self.walk(&root, prefix, &mut found);
        }
        ToolOutcome::ok(self.report(&shown, &found))
    }

    /// Depth first in name order, not following symlinks; every directory and file is
    /// opened beneath the workspace `root`.
    fn walk(&self, root: &Root, prefix: String, found: &mut Found) {
        let mut stack = vec![prefix];
        while let Some(prefix) = stack.pop() {
            let Ok(children) = root.read_dir(prefix.trim_end_matches('/')) else {
                found.unreadable += 1;
                continue;
            };
            let mut subdirs = Vec::new();
            for child in children {
                if found.full || self.cancel.is_cancelled() {
                    return;
                }
                let relative = format!("{prefix}{}", child.name);
                match child.kind {
                    FileKind::Dir => subdirs.push(relative + "/"),
                    FileKind::File => {
                        if found.files >= GREP_MAX_FILES {
                            found.too_many_files = true;
                            return;
                        }
                        self.search_file(root, &relative, &relative, found);
                    }
                    FileKind::Link => found.links += 1,
                    _ => {}
                }
            }
            // Files of this directory first, then its subdirectories in name order.
            stack.extend(subdirs.into_iter().rev());
        }
    }

    /// Searches the regular file `relative` (read beneath `root`, at most
    /// [`GREP_MAX_FILE_BYTES`]), shown as `shown`.
    fn search_file(&self, root: &Root, relative: &str, shown: &str, found: &mut Found) {
        found.files += 1;
        let bytes = match root.read(relative, GREP_MAX_FILE_BYTES) {
            Ok(bytes) => bytes,
            Err(ConfinedError::NotRegular { .. }) => return,
            Err(ConfinedError::TooLarge { .. }) => {
                found.large += 1;
                return;
            }
            Err(_) => {
                found.unreadable += 1;
                return;
            }
        };
        if looks_binary(&bytes[..bytes.len().min(SNIFF_BYTES)]) {
            found.binary += 1;
            return;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (index, line) in text.lines().enumerate() {
            if !self.regex.is_match(line) {
                continue;
            }
            if found.lines.len() as u64 >= self.max_results {
                found.full = true;
                return;
            }
            let line = truncate_with_marker(line.trim_end_matches('\r'), GREP_LINE_CHARS, "…");
            found.lines.push(format!("{shown}:{}: {line}", index + 1));
        }
    }

    fn report(&self, shown: &str, found: &Found) -> String {
        let mut out = if found.lines.is_empty() {
            format!(
                "No matches for /{}/ in '{shown}' ({} files searched).\n",
                self.regex.as_str(),
                found.files
            )
        } else {
            found.lines.join("\n") + "\n"
        };
        if found.full {
            out.push_str(&format!(
                "[stopped at {} matches; narrow the pattern or the path, or raise maxResults \
                 (at most {GREP_MAX_RESULTS})]\n",
                self.max_results
            ));
        }
        if let Some(requested) = self.requested
            && requested != self.max_results
        {
            out.push_str(&format!(
                "[maxResults {requested} was clamped to {} (allowed 1–{GREP_MAX_RESULTS})]\n",
                self.max_results
            ));
        }
        if found.too_many_files {
            out.push_str(&format!(
                "[stopped after searching {GREP_MAX_FILES} files; give a narrower path]\n"
            ));
        }
        let skipped: Vec<String> = [
            (found.binary, "binary"),
            (found.large, "over 10 MiB"),
            (found.links, "symbolic link"),
            (found.unreadable, "unreadable"),
        ]
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, what)| format!("{count} {what}"))
        .collect();
        if !skipped.is_empty() {
            out.push_str(&format!("[skipped: {}]\n", skipped.join(", ")));
        }
        if self.cancel.is_cancelled() {
            out.push_str("[search stopped: the turn was cancelled]\n");
        }
        out
    }
}
