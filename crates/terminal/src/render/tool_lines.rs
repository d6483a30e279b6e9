//! Tool calls as compact lines: `⚙ Name key-argument` when one starts, `  ✓ Name ·
//! ok · 0.3s · /show N` when it ends, its result folded (a failure's first line is
//! shown); a file write's line adds the lines it added and removed (`+3 −1`, from the
//! diff its result carries); `/show N` prints the call whole, a diff in colour.

use std::time::Duration;

use smallebot_agent::tools::ExecuteCommand;
use smallebot_core::rules::file_diff::{self, DiffLine};
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_core::rules::tool_summary::{elapsed, key_argument};
use smallebot_core::rules::truncation::truncate_with_marker;
use smallebot_protocol::events::ToolCallStatus;

use super::Style;

/// Characters of the key argument on a tool line.
const SHOWN_ARGUMENT_CHARS: usize = 100;
/// Characters of a failure's first line.
const SHOWN_FAILURE_CHARS: usize = 200;

/// The tool calls of a turn as they start and end: numbered in the order they started,
/// timed.
#[derive(Debug, Default)]
pub(super) struct ToolClock {
    started: Vec<(String, std::time::Instant)>,
}

impl ToolClock {
    pub(super) fn started(&mut self, call_id: &str) {
        self.started
            .push((call_id.to_owned(), std::time::Instant::now()));
    }

    /// The call's number in the turn (from 1) and how long it took.
    pub(super) fn completed(&mut self, call_id: &str) -> (usize, Option<std::time::Duration>) {
        match self.started.iter().position(|(id, _)| id == call_id) {
            Some(at) => (at + 1, Some(self.started[at].1.elapsed())),
            None => (self.started.len() + 1, None),
        }
    }
}

/// The line of a tool call that starts.
pub fn started(style: Style, name: &str, arguments: &str) -> String {
    let argument = key_argument(arguments)
        .map(|a| {
            let a = truncate_with_marker(&a, SHOWN_ARGUMENT_CHARS, "…").into_owned();
            let a = if name == ExecuteCommand::NAME {
                format!("$ {a}")
            } else {
                a
            };
            format!(" {}", escape_controls(&a))
        })
        .unwrap_or_default();
    format!(
        "{} {}{argument}",
        style.bold("⚙"),
        style.cyan(&escape_controls(name))
    )
}

/// The lines of a tool call that ended: its mark, name, status, time and, given its
/// `number` in the turn, the `/show` that expands it; a failure's first line of result.
pub fn completed(
    style: Style,
    number: Option<usize>,
    name: &str,
    status: ToolCallStatus,
    result: &str,
    took: Option<Duration>,
) -> Vec<String> {
    let ok = status == ToolCallStatus::Ok;
    let mark = if ok {
        style.green("✓")
    } else {
        style.red("✗")
    };
    let took = took
        .map(|d| format!(" · {}", elapsed(d)))
        .unwrap_or_default();
    let show = number.map(|n| format!(" · /show {n}")).unwrap_or_default();
    let changed = file_diff::changed(result)
        .filter(|_| ok)
        .map(|c| {
            let more = if c.cut { "…" } else { "" };
            format!(
                " {} {}{more}",
                style.green(&format!("+{}", c.added)),
                style.red(&format!("−{}", c.removed))
            )
        })
        .unwrap_or_default();
    let mut lines = vec![format!(
        "  {mark} {} {}{changed}{}",
        style.cyan(&escape_controls(name)),
        style.dim(&format!("· {}{took}", status.as_str())),
        style.dim(&show)
    )];
    if let Some(first) = result
        .lines()
        .find(|l| !l.trim().is_empty())
        .filter(|_| !ok)
    {
        let first = truncate_with_marker(first.trim(), SHOWN_FAILURE_CHARS, "…");
        lines.push(style.dim(&format!("    {}", escape_controls(&first))));
    }
    lines
}

/// A tool call's stored result as `/show` prints it: control characters made visible,
/// the lines of a diff block coloured (added green, removed red, hunk headers cyan).
pub fn shown_result(style: Style, result: &str) -> String {
    file_diff::classify(result)
        .into_iter()
        .map(|(line, kind)| {
            let line = escape_controls(line);
            match kind {
                DiffLine::Added => style.green(&line),
                DiffLine::Removed => style.red(&line),
                DiffLine::Hunk => style.cyan(&line),
                DiffLine::More => style.dim(&line),
                DiffLine::Text | DiffLine::Header | DiffLine::Context => line.into_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Style = Style { ansi: false };

    #[test]
    fn calls_show_their_key_argument_and_fold_their_result() {
        assert_eq!(
            started(PLAIN, ExecuteCommand::NAME, r#"{"command":"ls\u001b[2J"}"#),
            "⚙ ExecuteCommand $ ls^[[2J"
        );
        assert_eq!(
            started(PLAIN, "ReadFile", r#"{"path":"a.txt"}"#),
            "⚙ ReadFile a.txt"
        );
        assert_eq!(started(PLAIN, "GetCurrentTime", "{}"), "⚙ GetCurrentTime");
        let ten_lines: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        assert_eq!(
            completed(
                PLAIN,
                Some(2),
                "ReadFile",
                ToolCallStatus::Ok,
                &ten_lines,
                Some(Duration::from_millis(300))
            ),
            ["  ✓ ReadFile · ok · 0.3s · /show 2"]
        );
        assert_eq!(
            completed(
                PLAIN,
                None,
                ExecuteCommand::NAME,
                ToolCallStatus::Error,
                "\nexit 1\nmore",
                None
            ),
            ["  ✗ ExecuteCommand · error", "    exit 1"]
        );
    }

    const WRITE: &str = "Wrote 4 bytes to 'f' (replaced the previous 4 bytes).\n\n\
                         ```diff\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n```";

    #[test]
    fn a_file_write_shows_its_changes_on_its_line_and_its_diff_in_colour() {
        assert_eq!(
            completed(PLAIN, Some(1), "WriteFile", ToolCallStatus::Ok, WRITE, None),
            ["  ✓ WriteFile · ok +1 −1 · /show 1"]
        );
        let colour = Style { ansi: true };
        let shown = shown_result(colour, WRITE);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(
            lines[0],
            "Wrote 4 bytes to 'f' (replaced the previous 4 bytes)."
        );
        assert_eq!(lines[2], "```diff");
        assert_eq!(lines[3], "--- a/f");
        assert_eq!(lines[5], colour.cyan("@@ -1,2 +1,2 @@"));
        assert_eq!(lines[6], " a");
        assert_eq!(lines[7], colour.red("-b"));
        assert_eq!(lines[8], colour.green("+c"));
        assert_eq!(lines[9], "```");
        assert_eq!(shown_result(PLAIN, WRITE), WRITE);
        assert_eq!(
            shown_result(
                PLAIN,
                "x\u{1b}[2J\n\n```diff\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-\u{1b}\n```"
            ),
            "x^[[2J\n\n```diff\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-^[\n```"
        );
    }
}
