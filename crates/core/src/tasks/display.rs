//! The plan as text: CLI `/tasks`, the web drawer and the prompt re-injection.

use std::fmt::Write as _;

use super::model::{Task, TaskList, TaskStatus};

/// Formats the plan (no trailing newline):
///
/// ```text
/// Plan:
/// Progress: 1/3 (33.3%)
///   1: [✓] Load CSV data
///       Notes: Loaded 1000 rows
///       Tools: ReadFile (1 call), ExecuteCommand (2 calls)
///       Files: /ws/a.csv, b.txt
///   2: [→] Process data (depends on: [1])
///   3: [ ] Report (depends on: [1, 2])
/// ```
///
/// Markers: done `✓`, in progress `→`, blocked `!`, pending a space. The three detail
/// lines appear only when a task has notes, tool history or files, and then all three,
/// with `-` for an empty one; tools are grouped by name in order of first use. Line
/// breaks inside notes become spaces. An empty list prints `  (no tasks)`.
#[must_use]
pub fn format_plan(list: &TaskList) -> String {
    let mut out = format!("Plan:\n{}", format_progress(list));
    if list.tasks.is_empty() {
        out.push_str("\n  (no tasks)");
    }
    for task in &list.tasks {
        write_task(&mut out, task);
    }
    out
}

/// The plan's progress line, `Progress: 1/3 (33.3%)` (what the terminal prints while a
/// turn changes the plan).
#[must_use]
pub fn format_progress(list: &TaskList) -> String {
    let total = list.tasks.len();
    let done = list.tasks.iter().filter(|t| t.is_done()).count();
    progress_line(done, total)
}

/// The progress line of a plan with `done` of `total` tasks done,
/// `Progress: 1/3 (33.3%)` (the terminal prints it from the plan an event carries).
#[must_use]
pub fn progress_line(done: usize, total: usize) -> String {
    let percent = if total == 0 {
        0.0
    } else {
        count_f64(done) * 100.0 / count_f64(total)
    };
    format!("Progress: {done}/{total} ({percent:.1}%)")
}

fn count_f64(n: usize) -> f64 {
    u32::try_from(n).map_or(f64::from(u32::MAX), f64::from)
}

fn marker(status: TaskStatus) -> char {
    match status {
        TaskStatus::Done => '✓',
        TaskStatus::InProgress => '→',
        TaskStatus::Blocked => '!',
        TaskStatus::Pending => ' ',
    }
}

fn write_task(out: &mut String, task: &Task) {
    let _ = write!(
        out,
        "\n  {}: [{}] {}",
        task.id,
        marker(task.status),
        task.title
    );
    if !task.depends_on.is_empty() {
        let _ = write!(out, " (depends on: [{}])", task.depends_on.join(", "));
    }
    let notes = task
        .notes
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if notes.is_empty() && task.tool_history.is_empty() && task.files.is_empty() {
        return;
    }
    let _ = write!(out, "\n      Notes: {}", or_dash(notes));
    let _ = write!(out, "\n      Tools: {}", or_dash(tool_summary(task)));
    let _ = write!(out, "\n      Files: {}", or_dash(task.files.join(", ")));
}

fn or_dash(text: String) -> String {
    if text.is_empty() {
        "-".to_owned()
    } else {
        text
    }
}

/// The tools called while `task` was in progress, each once with its number of calls,
/// in order of first use.
#[must_use]
pub fn tool_counts(task: &Task) -> Vec<(&str, usize)> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for entry in &task.tool_history {
        match counts.iter_mut().find(|(name, _)| *name == entry.tool) {
            Some((_, count)) => *count += 1,
            None => counts.push((&entry.tool, 1)),
        }
    }
    counts
}

/// `ReadFile (1 call), ExecuteCommand (2 calls)`, in order of first use.
fn tool_summary(task: &Task) -> String {
    tool_counts(task)
        .iter()
        .map(|(name, count)| {
            format!(
                "{name} ({count} {})",
                if *count == 1 { "call" } else { "calls" }
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::model::ToolHistoryEntry;

    fn task(id: &str, title: &str, status: TaskStatus, deps: &[&str]) -> Task {
        let mut task = Task::new(id, title, "");
        task.set_status(status);
        task.depends_on = deps.iter().map(|d| (*d).to_owned()).collect();
        task
    }

    fn call(tool: &str) -> ToolHistoryEntry {
        ToolHistoryEntry {
            tool: tool.into(),
            ..ToolHistoryEntry::default()
        }
    }

    #[test]
    fn formats_the_design_example_exactly() {
        let mut first = task("1", "Load CSV data", TaskStatus::Done, &[]);
        first.notes = "Loaded 1000 rows".into();
        first.tool_history = vec![
            call("ReadFile"),
            call("ExecuteCommand"),
            call("ExecuteCommand"),
        ];
        first.files = vec!["/ws/a.csv".into(), "b.txt".into()];
        let list = TaskList {
            tasks: vec![
                first,
                task("2", "Process data", TaskStatus::InProgress, &["1"]),
                task("3", "Report", TaskStatus::Pending, &["1", "2"]),
            ],
        };
        let expected = "\
Plan:
Progress: 1/3 (33.3%)
  1: [✓] Load CSV data
      Notes: Loaded 1000 rows
      Tools: ReadFile (1 call), ExecuteCommand (2 calls)
      Files: /ws/a.csv, b.txt
  2: [→] Process data (depends on: [1])
  3: [ ] Report (depends on: [1, 2])";
        assert_eq!(format_plan(&list), expected);
    }

    #[test]
    fn counts_tools_in_order_of_first_use_and_prints_progress() {
        let mut first = task("1", "a", TaskStatus::Done, &[]);
        first.tool_history = vec![call("ReadFile"), call("Exec"), call("ReadFile")];
        assert_eq!(tool_counts(&first), [("ReadFile", 2), ("Exec", 1)]);
        assert!(tool_counts(&task("2", "b", TaskStatus::Pending, &[])).is_empty());
        let cases = [
            (vec![], "Progress: 0/0 (0.0%)"),
            (vec![first.clone()], "Progress: 1/1 (100.0%)"),
            (
                vec![first, task("2", "b", TaskStatus::Blocked, &[])],
                "Progress: 1/2 (50.0%)",
            ),
        ];
        for (tasks, expected) in cases {
            assert_eq!(format_progress(&TaskList { tasks }), expected);
        }
    }

    #[test]
    fn formats_snapshots() {
        let mut only_files = task("1", "Write", TaskStatus::Done, &[]);
        only_files.files = vec!["/ws/out.csv".into()];
        let mut only_tools = task("2", "Check", TaskStatus::Blocked, &["1"]);
        only_tools.tool_history = vec![call("ReadFile")];
        let mut multi_line_notes = task("3", "Sum up", TaskStatus::Done, &[]);
        multi_line_notes.notes = "first line\n\n  second line ".into();
        let cases = [
            (
                "empty",
                TaskList::default(),
                "Plan:\nProgress: 0/0 (0.0%)\n  (no tasks)",
            ),
            (
                "dashes for empty details, blocked marker",
                TaskList {
                    tasks: vec![only_files, only_tools],
                },
                "\
Plan:
Progress: 1/2 (50.0%)
  1: [✓] Write
      Notes: -
      Tools: -
      Files: /ws/out.csv
  2: [!] Check (depends on: [1])
      Notes: -
      Tools: ReadFile (1 call)
      Files: -",
            ),
            (
                "all done, notes on one line",
                TaskList {
                    tasks: vec![multi_line_notes, task("4", "Ship", TaskStatus::Done, &[])],
                },
                "\
Plan:
Progress: 2/2 (100.0%)
  3: [✓] Sum up
      Notes: first line second line
      Tools: -
      Files: -
  4: [✓] Ship",
            ),
            (
                "two thirds",
                TaskList {
                    tasks: vec![
                        task("1", "a", TaskStatus::Done, &[]),
                        task("2", "b", TaskStatus::Done, &[]),
                        task("3", "c", TaskStatus::Pending, &[]),
                    ],
                },
                "Plan:\nProgress: 2/3 (66.7%)\n  1: [✓] a\n  2: [✓] b\n  3: [ ] c",
            ),
        ];
        for (name, list, expected) in cases {
            assert_eq!(format_plan(&list), expected, "{name}");
        }
    }
}
