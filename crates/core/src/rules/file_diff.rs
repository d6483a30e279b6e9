//! What a file write changed, as a bounded unified diff that a `WriteFile` result
//! carries when it replaced a file, and how a front end reads it back.
//!
//! The block's form is fixed (the terminal and the web page both read it): after the
//! tool's one-line result, a blank line, then
//!
//! ````text
//! ```diff
//! --- a/<path>
//! +++ b/<path>
//! @@ -a,b +c,d @@
//!  context
//! -removed
//! +added
//! … N more lines
//! ```
//! ````
//!
//! At most [`MAX_DIFF_LINES`] lines follow the two file headers (hunk headers and
//! changed or context lines); a longer diff shows the first ones and, as the last
//! line inside the block, `… N more lines`. Every line between the fences starts with
//! `-`, `+`, ` `, `@` or `…`, so no line of the file can close the fence.

use std::time::Duration;

use similar::udiff::UnifiedHunkHeader;
use similar::{ChangeTag, TextDiff};

/// Lines after the file headers, the marker line of a cut diff included.
pub const MAX_DIFF_LINES: usize = 80;
/// Unchanged lines shown around each change.
pub const CONTEXT_LINES: usize = 3;
/// How long the diff may take; past it the diff is coarser (whole regions replaced),
/// still correct.
const DIFF_TIMEOUT: Duration = Duration::from_millis(200);
/// The line that opens the block.
const OPENING: &str = "```diff";
/// The line that closes it.
const CLOSING: &str = "```";
/// How the marker line of a cut diff starts.
const MORE: &str = "… ";

/// The diff block (from its opening fence to its closing one, without a line break
/// after) of `path` going from `old` to `new`; `None` for a new file (`old` is `None`)
/// or when no line changed. Lines are compared without their endings: a file whose
/// endings are CRLF shows its lines without `\r`, and a change of line endings alone
/// (CRLF to LF, a line break added after the last line) shows no diff.
#[must_use]
pub fn unified(path: &str, old: Option<&str>, new: &str) -> Option<String> {
    let old = old?;
    // A line break in the path would end its header line early.
    if path.contains(['\n', '\r']) {
        return None;
    }
    let old_lines: Vec<&str> = split_lines(old);
    let new_lines: Vec<&str> = split_lines(new);
    if old_lines == new_lines {
        return None;
    }
    let diff = TextDiff::configure()
        .timeout(DIFF_TIMEOUT)
        .diff_slices(&old_lines, &new_lines);
    let mut body: Vec<String> = Vec::new();
    for group in diff.grouped_ops(CONTEXT_LINES) {
        body.push(UnifiedHunkHeader::new(&group).to_string());
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                body.push(format!("{sign}{}", change.value()));
            }
        }
    }
    if body.is_empty() {
        return None;
    }
    if body.len() > MAX_DIFF_LINES {
        let kept = MAX_DIFF_LINES - 1;
        let left_out = body.len() - kept;
        body.truncate(kept);
        body.push(format!("{MORE}{left_out} more lines"));
    }
    let mut block = format!("{OPENING}\n--- a/{path}\n+++ b/{path}\n");
    for line in body {
        block.push_str(&line);
        block.push('\n');
    }
    block.push_str(CLOSING);
    Some(block)
}

/// `text`'s lines without their endings (`\n`, `\r\n`); none for an empty text.
fn split_lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

/// What a line of a tool result is, for showing it: outside a diff block every line
/// is [`DiffLine::Text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffLine {
    /// A line of the result outside a diff block.
    Text,
    /// A fence or a `---`/`+++` file header.
    Header,
    /// A `@@ … @@` hunk header.
    Hunk,
    /// A line the write added.
    Added,
    /// A line the write removed.
    Removed,
    /// An unchanged line around a change.
    Context,
    /// The `… N more lines` marker of a cut diff.
    More,
}

/// Each line of a tool result (as [`str::lines`] cuts it) with what it is. Only a block
/// where a write's result puts it counts — after the first line and a blank line,
/// opened by the fence and the two file headers — so a file that merely contains a
/// diff (a `ReadFile` result) is text.
#[must_use]
pub fn classify(result: &str) -> Vec<(&str, DiffLine)> {
    let lines: Vec<&str> = result.lines().collect();
    let has_block = matches!(
        lines.as_slice(),
        [_, "", OPENING, old, new, ..] if old.starts_with("--- a/") && new.starts_with("+++ b/")
    );
    let mut inside = false;
    lines
        .into_iter()
        .enumerate()
        .map(|(at, line)| {
            let kind = match at {
                _ if !has_block || at < 2 => DiffLine::Text,
                2 => {
                    inside = true;
                    DiffLine::Header
                }
                3 | 4 => DiffLine::Header,
                _ if !inside => DiffLine::Text,
                _ if line == CLOSING => {
                    inside = false;
                    DiffLine::Header
                }
                _ => match line.chars().next() {
                    Some('@') => DiffLine::Hunk,
                    Some('+') => DiffLine::Added,
                    Some('-') => DiffLine::Removed,
                    _ if line.starts_with(MORE) => DiffLine::More,
                    _ => DiffLine::Context,
                },
            };
            (line, kind)
        })
        .collect()
}

/// The lines added and removed that a tool result's diff block shows; `None` when it
/// has none. `cut`: the block left lines out, so the counts are of those shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Changed {
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// The diff was cut (`… N more lines`).
    pub cut: bool,
}

/// The changes a tool result's diff block shows; `None` without a block.
#[must_use]
pub fn changed(result: &str) -> Option<Changed> {
    let lines = classify(result);
    if !lines.iter().any(|(_, kind)| *kind == DiffLine::Hunk) {
        return None;
    }
    let count = |wanted| lines.iter().filter(|(_, kind)| *kind == wanted).count();
    Some(Changed {
        added: count(DiffLine::Added),
        removed: count(DiffLine::Removed),
        cut: count(DiffLine::More) > 0,
    })
}

#[cfg(test)]
#[path = "file_diff_tests.rs"]
mod tests;
