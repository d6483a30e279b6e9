//! Automatic tool history: every finished tool call of the conversation is appended to
//! the active in-progress task.
//!
//! The caller decides which calls are recorded (not the task tools' own: their tools
//! declare that they read or edit the list) and matches each result to its call by call
//! id; this module receives a finished call.

use serde_json::Value;

use super::model::{TaskList, ToolHistoryEntry};
use crate::time::{Timestamp, format_timestamp};

/// Results longer than this many characters are cut.
pub const RESULT_LIMIT_CHARS: usize = 200;

/// Appended to a result that was cut.
pub const TRUNCATED_SUFFIX: &str = "...[truncated]";

/// Cuts `result` after [`RESULT_LIMIT_CHARS`] characters (never inside a UTF-8
/// character) and appends [`TRUNCATED_SUFFIX`]; shorter results are returned unchanged.
#[must_use]
pub fn truncate_result(result: &str) -> String {
    match result.char_indices().nth(RESULT_LIMIT_CHARS) {
        Some((cut, _)) => format!("{}{TRUNCATED_SUFFIX}", &result[..cut]),
        None => result.to_owned(),
    }
}

/// Records a finished tool call on the active task ([`TaskList::active_task`]: the most
/// recently started in-progress task) and adds `files` to its files, skipping ones it
/// already lists.
///
/// Returns whether a task received the call: `false` when no task is in progress.
pub fn record_tool_call(
    list: &mut TaskList,
    tool: &str,
    args: &Value,
    result: &str,
    timestamp: &Timestamp,
    files: &[String],
) -> bool {
    let Some(index) = list.active_index() else {
        return false;
    };
    let task = &mut list.tasks[index];
    task.tool_history.push(ToolHistoryEntry {
        tool: tool.to_owned(),
        args: args.clone(),
        result: truncate_result(result),
        timestamp: format_timestamp(timestamp),
    });
    for file in files {
        if !task.files.contains(file) {
            task.files.push(file.clone());
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::model::TaskStatus;
    use chrono::{TimeZone, Utc};
    use serde_json::json;

    fn at(second: u32) -> Timestamp {
        Utc.with_ymd_and_hms(2026, 1, 20, 10, 30, second).unwrap()
    }

    #[test]
    fn truncates_at_200_characters() {
        let cases = [
            (String::new(), String::new()),
            ("a".repeat(200), "a".repeat(200)),
            (
                "a".repeat(201),
                format!("{}...[truncated]", "a".repeat(200)),
            ),
            (
                "é".repeat(250),
                format!("{}...[truncated]", "é".repeat(200)),
            ),
            (
                format!("{}😀😀", "a".repeat(199)),
                format!("{}😀...[truncated]", "a".repeat(199)),
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(
                truncate_result(&input),
                expected,
                "{} chars",
                input.chars().count()
            );
        }
    }

    #[test]
    fn nothing_is_recorded_without_an_in_progress_task() {
        let mut list = TaskList::default();
        list.add("a", "", &[]).unwrap();
        assert!(!record_tool_call(
            &mut list,
            "Read",
            &json!({}),
            "x",
            &at(0),
            &[]
        ));
        list.add("b", "", &[]).unwrap();
        list.complete("2", None).unwrap();
        assert!(!record_tool_call(
            &mut list,
            "Read",
            &json!({}),
            "x",
            &at(0),
            &[]
        ));
        assert!(list.tasks.iter().all(|t| t.tool_history.is_empty()));
    }

    #[test]
    fn the_most_recently_started_task_receives_the_call() {
        let mut list = TaskList::default();
        list.add("a", "", &[]).unwrap();
        list.add("b", "", &[]).unwrap();
        list.start("2").unwrap();
        list.start("1").unwrap();
        assert!(record_tool_call(
            &mut list,
            "Read",
            &json!({}),
            "x",
            &at(0),
            &[]
        ));
        assert_eq!(
            (
                list.tasks[0].tool_history.len(),
                list.tasks[1].tool_history.len()
            ),
            (1, 0)
        );
    }

    /// Acceptance: start, three tool calls, complete — three entries in order with
    /// truncated results, and the files they wrote.
    #[test]
    fn a_started_task_records_three_calls_and_their_files() {
        let mut list = TaskList::default();
        list.add("Write outputs", "", &[]).unwrap();
        list.start("1").unwrap();
        // (tool, arguments, result, files the tool says the call wrote: the caller
        // passes them in, decided by the tool — the shell analyzer for a command line)
        let shell = "echo hi > b.txt 2>/dev/null && cat b.txt | tee -a out/a.txt";
        let calls = [
            (
                "Write",
                json!({"path": "out/a.txt", "content": "x"}),
                "Wrote 1 byte".to_owned(),
                vec!["/ws/out/a.txt".to_owned()],
            ),
            (
                "Shell",
                json!({ "command": shell }),
                "h".repeat(300),
                vec!["/ws/b.txt".to_owned(), "/ws/out/a.txt".to_owned()],
            ),
            (
                "Shell",
                json!({"command": "touch never.txt; exit 1"}),
                "exit code 1".to_owned(),
                Vec::new(), // failed: the caller passes no files
            ),
        ];
        for (second, (tool, args, result, files)) in (0..).zip(&calls) {
            assert!(record_tool_call(
                &mut list,
                tool,
                args,
                result,
                &at(second),
                files
            ));
        }
        let task = list.complete("1", Some("done".into())).unwrap();
        assert_eq!(task.status, TaskStatus::Done);
        let history: Vec<(&str, &str, &str)> = task
            .tool_history
            .iter()
            .map(|e| (e.tool.as_str(), e.result.as_str(), e.timestamp.as_str()))
            .collect();
        let long = format!("{}...[truncated]", "h".repeat(200));
        assert_eq!(
            history,
            [
                ("Write", "Wrote 1 byte", "2026-01-20T10:30:00.000Z"),
                ("Shell", long.as_str(), "2026-01-20T10:30:01.000Z"),
                ("Shell", "exit code 1", "2026-01-20T10:30:02.000Z"),
            ]
        );
        assert_eq!(task.tool_history[0].args, calls[0].1);
        assert_eq!(task.files, ["/ws/out/a.txt", "/ws/b.txt"]);
    }
}
