//! The plan and a tool call's status in the protocol's words: what the
//! `TaskListChanged` event, the timeline and the export carry.

use smallebot_core::entities::ToolCallStatus;
use smallebot_core::tasks::{TaskList, TaskStatus, tool_counts};
use smallebot_protocol::events as wire;
use smallebot_protocol::plan::{Plan, PlanTask, ToolUse};

/// A tool call's status on the wire.
#[must_use]
pub fn tool_status(status: ToolCallStatus) -> wire::ToolCallStatus {
    use wire::ToolCallStatus as W;
    match status {
        ToolCallStatus::Running => W::Running,
        ToolCallStatus::Ok => W::Ok,
        ToolCallStatus::Error => W::Error,
        ToolCallStatus::Denied => W::Denied,
        ToolCallStatus::Cancelled => W::Cancelled,
        ToolCallStatus::Interrupted => W::Interrupted,
        _ => W::Unknown,
    }
}

/// The task list as the protocol's plan: each task's fields, its tools counted.
#[must_use]
pub fn plan(list: &TaskList) -> Plan {
    Plan::new(
        list.tasks
            .iter()
            .map(|task| PlanTask {
                id: task.id.clone(),
                title: task.title.clone(),
                description: task.description.clone(),
                status: task_status(task.status),
                depends_on: task.depends_on.clone(),
                notes: task.notes.clone(),
                tools: tool_counts(task)
                    .into_iter()
                    .map(|(name, calls)| ToolUse {
                        name: name.to_owned(),
                        calls: u64::try_from(calls).unwrap_or(u64::MAX),
                    })
                    .collect(),
                files: task.files.clone(),
            })
            .collect(),
    )
}

fn task_status(status: TaskStatus) -> smallebot_protocol::plan::TaskStatus {
    use smallebot_protocol::plan::TaskStatus as W;
    match status {
        TaskStatus::Pending => W::Pending,
        TaskStatus::InProgress => W::InProgress,
        TaskStatus::Done => W::Done,
        TaskStatus::Blocked => W::Blocked,
        _ => W::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{CompressionTrigger, Event, EventKind};
    use smallebot_core::ids::{ConversationId, TurnId};
    use smallebot_core::tasks::{Task, ToolHistoryEntry};

    fn call(tool: &str) -> ToolHistoryEntry {
        ToolHistoryEntry {
            tool: tool.into(),
            ..ToolHistoryEntry::default()
        }
    }

    #[test]
    fn a_changed_plan_goes_out_as_its_tasks() {
        let mut first = Task::new("1", "Load", "the CSV");
        first.set_status(TaskStatus::InProgress);
        first.tool_history = vec![call("ReadFile"), call("Exec"), call("ReadFile")];
        first.files = vec!["a.csv".into()];
        let mut second = Task::new("2", "Report", "");
        second.depends_on = vec!["1".into()];
        let list = TaskList {
            tasks: vec![first, second],
        };
        let (conversation, turn) = (ConversationId::new(), TurnId::new());
        let sent = Event::new(
            conversation,
            Some(turn),
            7,
            EventKind::TaskListChanged { plan: plan(&list) },
        )
        .into_wire();
        let expected = serde_json::json!({
            "conversation_id": conversation.to_string(),
            "turn_id": turn.to_string(),
            "seq": 7,
            "type": "TaskListChanged",
            "plan": {"tasks": [
                {"id": "1", "title": "Load", "description": "the CSV", "status": "in_progress",
                 "depends_on": [], "notes": "",
                 "tools": [{"name": "ReadFile", "calls": 2}, {"name": "Exec", "calls": 1}],
                 "files": ["a.csv"]},
                {"id": "2", "title": "Report", "description": "", "status": "pending",
                 "depends_on": ["1"], "notes": "", "tools": [], "files": []},
            ]},
        });
        assert_eq!(serde_json::to_value(sent).unwrap(), expected);
    }

    #[test]
    fn events_keep_their_type_and_fields() {
        let id = ConversationId::new();
        let cases = [
            (
                EventKind::TurnStarted,
                serde_json::json!({"type": "TurnStarted"}),
            ),
            (
                EventKind::ToolCallCompleted {
                    call_id: "c".into(),
                    tool_name: "T".into(),
                    status: tool_status(ToolCallStatus::Interrupted),
                    result: "r".into(),
                },
                serde_json::json!({"type": "ToolCallCompleted", "call_id": "c",
                    "tool_name": "T", "status": "interrupted", "result": "r"}),
            ),
            (
                EventKind::CompressionStarted {
                    trigger: CompressionTrigger::MidTurn,
                },
                serde_json::json!({"type": "CompressionStarted", "trigger": "mid_turn"}),
            ),
            (
                EventKind::TurnFailed { error: "e".into() },
                serde_json::json!({"type": "TurnFailed", "error": "e"}),
            ),
        ];
        for (kind, mut expected) in cases {
            let sent = serde_json::to_value(Event::new(id, None, 1, kind.clone()).into_wire());
            expected["conversation_id"] = id.to_string().into();
            expected["seq"] = 1.into();
            assert_eq!(sent.unwrap(), expected, "{kind:?}");
        }
    }

    #[test]
    fn every_stored_tool_status_has_its_word_on_the_wire() {
        let cases = [
            (ToolCallStatus::Running, "running"),
            (ToolCallStatus::Ok, "ok"),
            (ToolCallStatus::Error, "error"),
            (ToolCallStatus::Denied, "denied"),
            (ToolCallStatus::Cancelled, "cancelled"),
            (ToolCallStatus::Interrupted, "interrupted"),
        ];
        for (status, word) in cases {
            let sent = serde_json::to_value(tool_status(status)).unwrap();
            assert_eq!(sent, serde_json::json!(word), "{status:?}");
        }
    }
}
