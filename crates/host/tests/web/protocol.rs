//! What the server sends is the protocol (`smallebot-protocol`, docs/protocol.md):
//! every answer carries its version, events and bodies read as its types, and the plan
//! travels as data.

use std::sync::Arc;
use std::time::Duration;

use crate::common;

use common::Server;
use serde_json::json;
use smallebot_protocol::api::{Conversation, Timeline};
use smallebot_protocol::events::{Event, EventKind};
use smallebot_protocol::plan::TaskStatus;
use smallebot_protocol::{PROTOCOL_VERSION, VERSION_HEADER};
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

#[tokio::test]
async fn every_answer_carries_the_protocol_version() {
    let s = Server::start().await;
    let id = s.create().await;
    for (path, status) in [
        ("/", 200),
        ("/healthz", 200),
        ("/api/conversations", 200),
        (format!("/api/conversations/{id}").as_str(), 200),
        ("/api/conversations/nope", 404),
    ] {
        let answer = s.http.get(s.url(path)).send().await.unwrap();
        assert_eq!(answer.status().as_u16(), status, "{path}");
        assert_eq!(
            answer.headers()[VERSION_HEADER],
            PROTOCOL_VERSION.to_string().as_str(),
            "{path}"
        );
    }
    // A request for another host is refused before any route, with the version too.
    let refused = s
        .http
        .get(s.url("/api/conversations"))
        .header("host", "elsewhere.example")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 403);
    assert_eq!(
        refused.headers()[VERSION_HEADER],
        PROTOCOL_VERSION.to_string().as_str()
    );
}

#[tokio::test]
async fn the_plan_travels_as_data_in_events_and_the_timeline() {
    let tasks = tempfile::tempdir().unwrap();
    let task_dir = tasks.path().to_path_buf();
    let s = Server::start_custom(
        move |agent| {
            agent.task_store(Arc::new(smallebot_infrastructure::FileTaskStore::new(
                task_dir,
            )))
        },
        |web| web,
    )
    .await;
    let call = |id: &str, tool: &str, args: &str| {
        ScriptedResponse::tool_calls([ToolCallSpec::new(id, tool, args)])
    };
    s.model.push_all([
        call(
            "c1",
            "AddTask",
            r#"{"title":"Collect","description":"the data"}"#,
        ),
        call("c2", "AddTask", r#"{"title":"Report","dependsOn":["1"]}"#),
        call("c3", "StartTask", r#"{"taskId":"1"}"#),
        call("c4", "GetCurrentTime", "{}"),
        ScriptedResponse::text("Planned."),
    ]);
    let id = s.create().await;
    let mut stream = s.open_events(&id, None).await;
    s.send(&id, json!({"text": "plan it"})).await;
    let frames = tokio::time::timeout(Duration::from_secs(20), stream.until_turn_ends())
        .await
        .unwrap();

    // Every event reads as the protocol's, none of a type it does not know.
    let events: Vec<Event> = frames
        .iter()
        .map(|f| serde_json::from_value(f.data.clone()).unwrap())
        .collect();
    assert!(
        !events.iter().any(|e| matches!(e.kind, EventKind::Unknown)),
        "{events:?}"
    );
    let plans: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::TaskListChanged { plan } => Some(plan.clone()),
            _ => None,
        })
        .collect();
    // Two adds, the start, the recorded call.
    assert_eq!(plans.len(), 4, "{plans:?}");
    let last = plans.last().unwrap();
    assert_eq!(last.progress(), (0, 2));
    let (first, second) = (&last.tasks[0], &last.tasks[1]);
    assert_eq!(
        (
            first.id.as_str(),
            first.title.as_str(),
            first.description.as_str()
        ),
        ("1", "Collect", "the data")
    );
    assert_eq!(first.status, TaskStatus::InProgress);
    assert_eq!(first.tools.len(), 1);
    assert_eq!(
        (first.tools[0].name.as_str(), first.tools[0].calls),
        ("GetCurrentTime", 1)
    );
    assert_eq!(second.status, TaskStatus::Pending);
    assert_eq!(second.depends_on, ["1"]);

    // The timeline reads as the protocol's too, with the same plan.
    let timeline: Timeline =
        serde_json::from_value(s.get_json(&format!("/api/conversations/{id}")).await).unwrap();
    assert_eq!(timeline.plan.as_ref(), Some(last));
    assert_eq!(timeline.plan_error, None);
    assert_eq!(timeline.conversation.id, id);
    let list: Vec<Conversation> =
        serde_json::from_value(s.get_json("/api/conversations").await).unwrap();
    assert_eq!(list[0].id, id);
}

#[tokio::test]
async fn a_corrupt_task_file_is_said_in_the_timeline_not_shown_as_no_tasks() {
    let tasks = tempfile::tempdir().unwrap();
    let store = smallebot_infrastructure::FileTaskStore::new(tasks.path().to_path_buf());
    let task_dir = tasks.path().to_path_buf();
    let s = Server::start_custom(
        move |agent| {
            agent.task_store(Arc::new(smallebot_infrastructure::FileTaskStore::new(
                task_dir,
            )))
        },
        |web| web,
    )
    .await;
    let id = s.create().await;
    let timeline: Timeline =
        serde_json::from_value(s.get_json(&format!("/api/conversations/{id}")).await).unwrap();
    assert_eq!(
        (timeline.plan, timeline.plan_error),
        (None, None),
        "no tasks yet"
    );

    let path = store.path_of(id.parse().unwrap());
    std::fs::write(&path, "{ not json").unwrap();
    let timeline: Timeline =
        serde_json::from_value(s.get_json(&format!("/api/conversations/{id}")).await).unwrap();
    assert_eq!(timeline.plan, None);
    let error = timeline.plan_error.unwrap();
    assert!(
        error.starts_with(smallebot_core::tasks::CORRUPT_TASK_FILE)
            && error.contains(&path.display().to_string()),
        "{error}"
    );
}
