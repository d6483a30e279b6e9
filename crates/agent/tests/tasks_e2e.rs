//! Issue 5 acceptance 1, 4, 7 and 8 end to end: scripted turns through the testkit,
//! wired like the host (see `tasks_support`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod tasks_support;

use serde_json::{Value, json};
use smallebot_application::{EventKind, SendOptions};
use smallebot_core::entities::{HistoryRow, TurnStatus};
use smallebot_core::repository::HistoryRepository;
use smallebot_core::tasks::{TaskStatus, TaskStore};
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};
use tasks_support::{harness, result_of, step, task_json, task_list_section};

/// Writes `b.txt` (in the `sub` working directory) and prints 300 characters.
const SHELL_COMMAND: &str = "echo hi > b.txt 2>/dev/null; printf '%300s' | tr ' ' h";

#[tokio::test]
async fn a_scripted_turn_uses_every_task_tool_and_the_plan_follows_it() {
    let h = harness().await;
    h.server.push_all([
        step("c1", "ListTasks", json!({})),
        step(
            "c2",
            "AddTask",
            json!({"title": "Write notes", "description": "notes and b.txt"}),
        ),
        step(
            "c3",
            "AddTask",
            json!({"title": "Review", "dependsOn": ["1"]}),
        ),
        ScriptedResponse::tool_calls([
            ToolCallSpec::new("c4", "StartTask", r#"{"taskId":"2"}"#),
            ToolCallSpec::new("c5", "DeleteTask", r#"{"taskId":"9"}"#),
        ]),
        step("c6", "StartTask", json!({"taskId": "1"})),
        step(
            "c7",
            "WriteFile",
            json!({"path": "notes/a.md", "content": "hello"}),
        ),
        step(
            "c8",
            "ExecuteCommand",
            json!({"command": SHELL_COMMAND, "workingDirectory": "sub"}),
        ),
        step("c9", "GetCurrentTime", json!({})),
        step(
            "c10",
            "CompleteTask",
            json!({"taskId": "1", "notes": "Notes written"}),
        ),
        step("c11", "UncompleteTask", json!({"taskId": "1"})),
        step("c12", "CompleteTask", json!({"taskId": "1"})),
        step("c13", "DeleteTask", json!({"taskId": "1"})),
        step("c14", "DeleteTask", json!({"taskId": "2"})),
        step("c15", "ListTasks", json!({})),
        ScriptedResponse::text("Notes are written."),
    ]);
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c, "Write the notes", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed, "{:?}", outcome.error);
    let requests = h.server.requests();
    assert_eq!(requests.len(), 15);

    // Every tool's result as the model saw it (request i+1 carries step i's results).
    let ok_task = |t: String| format!(r#"{{"ok":true,"task":{t}}}"#);
    let not_found = r#"{"ok":false,"error":"Task not found"}"#;
    let started = task_json("1", "Write notes", "notes and b.txt", "in_progress", &[]);
    let expected: [(usize, &str, String); 9] = [
        (1, "c1", r#"{"tasks":[]}"#.into()),
        (2, "c2", task_json("1", "Write notes", "notes and b.txt", "pending", &[])),
        (3, "c3", task_json("2", "Review", "", "pending", &["1"])),
        (4, "c4", r#"{"ok":false,"error":"Task 2 cannot start: dependencies not done: 1; complete them first"}"#.into()),
        (4, "c5", not_found.into()),
        (5, "c6", ok_task(started.replace(r#""files":[]"#, r#""files":[],"startOrder":1"#))),
        (6, "c7", "Wrote 5 bytes to 'notes/a.md' (new file).".into()),
        (12, "c13", r#"{"ok":false,"error":"Task 1 cannot be deleted: task(s) 2 depend on it; delete them first"}"#.into()),
        (13, "c14", r#"{"ok":true}"#.into()),
    ];
    for (request, call, result) in &expected {
        assert_eq!(&result_of(&requests[*request], call), result, "{call}");
    }
    let completed: Value = serde_json::from_str(&result_of(&requests[9], "c10")).unwrap();
    assert_eq!(completed["ok"], true);
    assert_eq!(completed["task"]["status"], "done");
    assert_eq!(completed["task"]["notes"], "Notes written");
    let uncompleted: Value = serde_json::from_str(&result_of(&requests[10], "c11")).unwrap();
    assert_eq!(
        (&uncompleted["task"]["status"], &uncompleted["task"]["done"]),
        (&json!("pending"), &json!(false))
    );
    let listed: Value = serde_json::from_str(&result_of(&requests[14], "c15")).unwrap();
    assert_eq!(listed["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(listed["tasks"][0]["status"], "done");

    // Acceptance 7: every request carries the plan as it was at that moment.
    let ws = &h.workspace;
    let details = format!(
        "\n      Notes: {{notes}}\n      Tools: WriteFile (1 call), ExecuteCommand (1 call), GetCurrentTime (1 call)\n      Files: {ws}/notes/a.md, {ws}/sub/b.txt"
    );
    let both = |one: &str, details: &str| {
        format!(
            "Plan:\nProgress: {}\n  1: [{one}] Write notes{details}\n  2: [ ] Review (depends on: [1])",
            if one == "✓" {
                "1/2 (50.0%)"
            } else {
                "0/2 (0.0%)"
            }
        )
    };
    let full = details.replace("{notes}", "Notes written");
    let sections: Vec<Option<String>> = requests.iter().map(task_list_section).collect();
    let expected_sections: Vec<Option<String>> = vec![
        None,
        None,
        Some("Plan:\nProgress: 0/1 (0.0%)\n  1: [ ] Write notes".into()),
        Some(both(" ", "")),
        Some(both(" ", "")),
        Some(both("→", "")),
        Some(both(
            "→",
            &format!(
                "\n      Notes: -\n      Tools: WriteFile (1 call)\n      Files: {ws}/notes/a.md"
            ),
        )),
        Some(both(
            "→",
            &format!(
                "\n      Notes: -\n      Tools: WriteFile (1 call), ExecuteCommand (1 call)\n      Files: {ws}/notes/a.md, {ws}/sub/b.txt"
            ),
        )),
        Some(both("→", &details.replace("{notes}", "-"))),
        Some(both("✓", &full)),
        Some(both(" ", &full)),
        Some(both("✓", &full)),
        Some(both("✓", &full)),
        Some(format!(
            "Plan:\nProgress: 1/1 (100.0%)\n  1: [✓] Write notes{full}"
        )),
        Some(format!(
            "Plan:\nProgress: 1/1 (100.0%)\n  1: [✓] Write notes{full}"
        )),
    ];
    for (i, (got, want)) in sections.iter().zip(&expected_sections).enumerate() {
        assert_eq!(got, want, "request {}", i + 1);
    }

    // Acceptance 8: three calls in order, truncated results, the files they wrote.
    let list = h.tasks.load(c).await.unwrap();
    let task = &list.tasks[0];
    assert_eq!(task.status, TaskStatus::Done);
    let history: Vec<(&str, &Value)> = task
        .tool_history
        .iter()
        .map(|e| (e.tool.as_str(), &e.args))
        .collect();
    assert_eq!(
        history,
        [
            (
                "WriteFile",
                &json!({"path": "notes/a.md", "content": "hello"})
            ),
            (
                "ExecuteCommand",
                &json!({"command": SHELL_COMMAND, "workingDirectory": "sub"})
            ),
            ("GetCurrentTime", &json!({})),
        ]
    );
    assert_eq!(
        task.tool_history[0].result,
        "Wrote 5 bytes to 'notes/a.md' (new file)."
    );
    let long = format!("{}\n[exit code: 0]", "h".repeat(300));
    let cut: String = long.chars().take(200).collect();
    assert_eq!(task.tool_history[1].result, format!("{cut}...[truncated]"));
    assert!(task.tool_history[2].result.contains("UTC"));
    assert!(
        task.tool_history
            .windows(2)
            .all(|w| w[0].timestamp <= w[1].timestamp)
    );
    assert_eq!(
        task.files,
        [format!("{ws}/notes/a.md"), format!("{ws}/sub/b.txt")]
    );

    // TaskListChanged after every change: 2 adds, start, 3 recorded calls, complete,
    // uncomplete, complete, delete — none for ListTasks or refused calls.
    let mut changes = Vec::new();
    for event in h.drain_events() {
        if let EventKind::TaskListChanged { plan, .. } = event {
            changes.push(plan);
        }
    }
    assert_eq!(changes.len(), 10, "{changes:#?}");
    // The last change carries the stored list, as the protocol's plan.
    assert_eq!(
        changes.last(),
        Some(&smallebot_application::wire::plan::plan(&list))
    );
}

#[tokio::test]
async fn the_plan_follows_the_newest_message_of_every_later_turn() {
    let h = harness().await;
    h.server.push_all([
        step("a1", "AddTask", json!({"title": "Collect data"})),
        ScriptedResponse::text("Planned."),
        ScriptedResponse::text("Still planned."),
    ]);
    let c = h.conversation().await;
    h.service
        .send(c, "Plan it", SendOptions::default())
        .await
        .unwrap();
    h.service
        .send(c, "And now?", SendOptions::default())
        .await
        .unwrap();
    let requests = h.server.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(task_list_section(&requests[0]), None);
    let plan = "Plan:\nProgress: 0/1 (0.0%)\n  1: [ ] Collect data";
    assert_eq!(task_list_section(&requests[1]).as_deref(), Some(plan));
    assert_eq!(
        task_list_section(&requests[2]).as_deref(),
        Some(plan),
        "second turn"
    );

    h.service.delete_conversation(c).await.unwrap();
    assert!(
        !h.tasks.path_of(c).exists(),
        "deleting the conversation deletes its tasks"
    );
}

/// Acceptance 4: two calls of the same tool in one step, finishing in reverse order,
/// are each recorded with their own arguments and result.
#[tokio::test]
async fn parallel_calls_finishing_in_reverse_order_keep_their_own_results() {
    let h = harness().await;
    h.server.push_all([
        step("s1", "AddTask", json!({"title": "Wait"})),
        step("s2", "StartTask", json!({"taskId": "1"})),
        ScriptedResponse::tool_calls([
            ToolCallSpec::new("slow", "Sleepy", r#"{"ms":300}"#),
            ToolCallSpec::new("fast", "Sleepy", r#"{"ms":5}"#),
        ]),
        ScriptedResponse::text("Both done."),
    ]);
    let c = h.conversation().await;
    h.service
        .send(c, "Wait twice", SendOptions::default())
        .await
        .unwrap();

    let list = h.tasks.load(c).await.unwrap();
    let recorded: Vec<(Value, &str)> = list.tasks[0]
        .tool_history
        .iter()
        .map(|e| (e.args.clone(), e.result.as_str()))
        .collect();
    assert_eq!(
        recorded,
        [
            (json!({"ms": 5}), "done 5"),
            (json!({"ms": 300}), "done 300")
        ],
        "recorded as they finished, each with its own result"
    );
    let rows = h.store_rows(c).await;
    let stored: Vec<(String, String)> = rows
        .iter()
        .filter_map(|r| match r {
            HistoryRow::ToolCall(t) if t.tool_name == "Sleepy" => {
                Some((t.call_id.clone(), t.result.clone().unwrap_or_default()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        stored,
        [
            ("slow".to_owned(), "done 300".to_owned()),
            ("fast".to_owned(), "done 5".to_owned())
        ]
    );
}

/// A command that exits non-zero failed: its files are not recorded on the task.
#[tokio::test]
async fn a_failed_command_records_no_files_on_the_task() {
    let h = harness().await;
    h.server.push_all([
        step("f1", "AddTask", json!({"title": "Copy"})),
        step("f2", "StartTask", json!({"taskId": "1"})),
        step(
            "f3",
            "ExecuteCommand",
            json!({"command": "cp missing.txt out.txt"}),
        ),
        step(
            "f4",
            "ExecuteCommand",
            json!({"command": "echo x > ok.txt"}),
        ),
        ScriptedResponse::text("Done."),
    ]);
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c, "Copy it", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed, "{:?}", outcome.error);
    let rows = h.store.rows_after(c, 0).await.unwrap();
    let statuses: Vec<(String, String)> = rows
        .iter()
        .filter_map(|r| match r {
            HistoryRow::ToolCall(t) if t.tool_name == "ExecuteCommand" => Some((
                t.status.as_str().to_owned(),
                t.result.clone().unwrap_or_default(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(statuses[0].0, "error", "{statuses:?}");
    assert!(statuses[0].1.ends_with("[exit code: 1]"), "{statuses:?}");
    assert_eq!(statuses[1].0, "ok", "{statuses:?}");
    let list = h.tasks.load(c).await.unwrap();
    let ws = &h.workspace;
    assert_eq!(list.tasks[0].files, [format!("{ws}/ok.txt")]);
}
