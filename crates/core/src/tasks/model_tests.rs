//! Unit tests of the task file model (seed format, done/status mirroring, ids).
use super::*;
use serde_json::json;

fn parse(text: &str) -> TaskList {
    serde_json::from_str(text).unwrap()
}

#[test]
fn reads_the_seed_format_and_derives_status_from_done() {
    let list = parse(
        r#"{"tasks":[
            {"id":"3f2b9c1e0a4d4e5f8a9b0c1d2e3f4a5b","title":"Load","description":"d","done":true},
            {"id":"b","title":"Next","description":"","done":false}
        ]}"#,
    );
    let cases = [
        (
            0,
            "3f2b9c1e0a4d4e5f8a9b0c1d2e3f4a5b",
            TaskStatus::Done,
            true,
        ),
        (1, "b", TaskStatus::Pending, false),
    ];
    for (index, id, status, done) in cases {
        let task = &list.tasks[index];
        assert_eq!(task.id, id);
        assert_eq!(task.status, status, "{id}");
        assert_eq!(task.done, done, "{id}");
        assert!(task.depends_on.is_empty() && task.tool_history.is_empty());
        assert!(task.files.is_empty() && task.notes.is_empty());
    }
}

#[test]
fn status_wins_over_a_stale_done_when_both_are_present() {
    let cases = [
        (
            r#"{"id":"1","done":true,"status":"pending"}"#,
            TaskStatus::Pending,
            false,
        ),
        (
            r#"{"id":"1","done":false,"status":"done"}"#,
            TaskStatus::Done,
            true,
        ),
        (
            r#"{"id":"1","status":"in_progress"}"#,
            TaskStatus::InProgress,
            false,
        ),
        (
            r#"{"id":"1","status":"blocked"}"#,
            TaskStatus::Blocked,
            false,
        ),
        (r#"{"id":"1"}"#, TaskStatus::Pending, false),
    ];
    for (text, status, done) in cases {
        let task: Task = serde_json::from_str(text).unwrap();
        assert_eq!((task.status, task.done), (status, done), "{text}");
    }
}

#[test]
fn tolerates_numbers_and_nulls_from_hand_edited_files() {
    let task: Task = serde_json::from_str(
        r#"{"id":7,"title":null,"description":null,"dependsOn":[1,"2"],"notes":null,"files":null}"#,
    )
    .unwrap();
    assert_eq!(task.id, "7");
    assert_eq!(task.depends_on, ["1", "2"]);
    assert_eq!(task.title, "");
    assert!(parse(r#"{"tasks":null}"#).tasks.is_empty());
    assert!(parse("{}").tasks.is_empty());
}

#[test]
fn writes_camel_case_keys_and_done_from_status() {
    let mut task = Task::new("1", "Load", "");
    task.status = TaskStatus::Done; // set directly: serialization still mirrors it
    task.depends_on = vec!["0".into()];
    task.tool_history.push(ToolHistoryEntry {
        tool: "ReadFile".into(),
        args: json!({"path":"a"}),
        result: "ok".into(),
        timestamp: "2026-01-20T10:30:00.000Z".into(),
    });
    let value = serde_json::to_value(TaskList { tasks: vec![task] }).unwrap();
    assert_eq!(
        value,
        json!({"tasks":[{
            "id":"1","title":"Load","description":"","done":true,"status":"done",
            "dependsOn":["0"],"notes":"",
            "toolHistory":[{"tool":"ReadFile","args":{"path":"a"},"result":"ok",
                            "timestamp":"2026-01-20T10:30:00.000Z"}],
            "files":[]
        }]})
    );
}

#[test]
fn round_trips_start_order() {
    let mut task = Task::new("1", "t", "");
    task.set_status(TaskStatus::InProgress);
    task.start_order = 4;
    let text = serde_json::to_string(&task).unwrap();
    assert!(text.contains(r#""startOrder":4"#), "{text}");
    assert_eq!(serde_json::from_str::<Task>(&text).unwrap(), task);
}

#[test]
fn next_id_is_one_more_than_the_largest_numeric_id() {
    let cases: [(&[&str], &str); 5] = [
        (&[], "1"),
        (&["1"], "2"),
        (&["3", "1"], "4"),
        (&["3f2b9c1e0a4d4e5f8a9b0c1d2e3f4a5b"], "1"),
        (&["guid", "9", "10"], "11"),
    ];
    for (ids, expected) in cases {
        let list = TaskList {
            tasks: ids.iter().map(|id| Task::new(*id, "t", "")).collect(),
        };
        assert_eq!(list.next_id(), expected, "{ids:?}");
    }
}

#[test]
fn set_status_keeps_done_in_step() {
    let mut task = Task::new("1", "t", "");
    for status in [
        TaskStatus::Done,
        TaskStatus::InProgress,
        TaskStatus::Blocked,
        TaskStatus::Done,
        TaskStatus::Pending,
    ] {
        task.set_status(status);
        assert_eq!(task.done, status == TaskStatus::Done);
    }
}
