//! Tool calls as compact lines: `⚙ Name key-argument` when one starts, `  ✓ Name ·
//! ok · 0.3s · /show N` when it ends, its result folded (a failure's first line is
//! shown); `/show N` prints the call whole.

use std::time::Duration;

use smallebot_agent::tools::ExecuteCommand;
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::rules::terminal_text::escape_controls;
use smallebot_core::rules::tool_summary::{elapsed, key_argument};
use smallebot_core::rules::truncation::truncate_with_marker;

use super::Style;

/// Characters of the key argument on a tool line.
const SHOWN_ARGUMENT_CHARS: usize = 100;
/// Characters of a failure's first line.
const SHOWN_FAILURE_CHARS: usize = 200;

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
    let mut lines = vec![format!(
        "  {mark} {} {}",
        style.cyan(&escape_controls(name)),
        style.dim(&format!("· {}{took}{show}", status.as_str()))
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
}
