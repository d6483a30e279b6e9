//! Events to the wire: the application's [`Event`]s, the plan, command confirmations.

use smallebot_application::events::{CompressionTrigger, Event, EventKind};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::tasks::{TaskList, TaskStatus, tool_counts};
use smallebot_protocol::events as wire;
use smallebot_protocol::plan::{Plan, PlanTask, ToolUse};

use crate::confirm::PendingConfirmation;

/// The event as the stream sends it; `None` for an event the protocol has no form for
/// (a kind added inside the server before the protocol names it). Takes the event, so
/// its texts move to the wire without a copy.
pub(crate) fn event(event: Event) -> Option<wire::Event> {
    Some(wire::Event::new(
        event.conversation_id.to_string(),
        event.turn_id.map(|t| t.to_string()),
        event.seq,
        kind(event.kind)?,
    ))
}

/// What happened, in the protocol's words.
fn kind(kind: EventKind) -> Option<wire::EventKind> {
    use wire::EventKind as W;
    Some(match kind {
        EventKind::TurnStarted => W::TurnStarted,
        EventKind::TextDelta { text } => W::TextDelta { text },
        EventKind::ReasoningDelta { text } => W::ReasoningDelta { text },
        EventKind::Retrying {
            attempt,
            max,
            reason,
            delay_ms,
        } => W::Retrying {
            attempt,
            max,
            reason,
            delay_ms,
        },
        EventKind::ToolCallStarted {
            call_id,
            tool_name,
            arguments,
        } => W::ToolCallStarted {
            call_id,
            tool_name,
            arguments,
        },
        EventKind::ToolCallCompleted {
            call_id,
            tool_name,
            status,
            result,
        } => W::ToolCallCompleted {
            call_id,
            tool_name,
            status: tool_status(status),
            result,
        },
        EventKind::CompressionStarted { trigger: t } => W::CompressionStarted {
            trigger: trigger(t),
        },
        EventKind::CompressionCompleted {
            trigger: t,
            ok,
            detail,
            tokens_before,
            tokens_after,
        } => W::CompressionCompleted {
            trigger: trigger(t),
            ok,
            detail,
            tokens_before,
            tokens_after,
        },
        EventKind::ContextUsage {
            used,
            window,
            ratio,
            exact,
            reported,
        } => W::ContextUsage {
            used,
            window,
            ratio,
            exact,
            reported,
        },
        EventKind::TaskListChanged { plan: list } => W::TaskListChanged { plan: plan(&list) },
        EventKind::TitleChanged { title } => W::TitleChanged { title },
        EventKind::Warning { message } => W::Warning { message },
        EventKind::TurnCompleted { text, cut } => W::TurnCompleted {
            text,
            cut: cut.map(answer_cut),
        },
        EventKind::TurnCancelled => W::TurnCancelled,
        EventKind::TurnFailed { error } => W::TurnFailed { error },
        _ => return None,
    })
}

/// A tool call's status on the wire.
pub(crate) fn tool_status(status: ToolCallStatus) -> wire::ToolCallStatus {
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

fn trigger(trigger: CompressionTrigger) -> wire::CompressionTrigger {
    use wire::CompressionTrigger as W;
    match trigger {
        CompressionTrigger::BeforeTurn => W::BeforeTurn,
        CompressionTrigger::MidTurn => W::MidTurn,
        CompressionTrigger::Overflow => W::Overflow,
        CompressionTrigger::Manual => W::Manual,
        _ => W::Unknown,
    }
}

/// The task list as the protocol's plan: each task's fields, its tools counted.
pub(crate) fn plan(list: &TaskList) -> Plan {
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

/// A `confirm` event's data: the command waiting, or none.
pub(crate) fn confirm(pending: Option<&PendingConfirmation>) -> wire::ConfirmEvent {
    match pending {
        Some(p) => wire::ConfirmEvent::ConfirmationRequested {
            request_id: p.request_id,
            command: p.command.clone(),
            timeout_secs: p.timeout_secs,
            unconfined: p.unconfined,
        },
        None => wire::ConfirmEvent::ConfirmationClosed,
    }
}

/// Why an answer was cut, on the wire.
pub(crate) fn answer_cut(
    cut: smallebot_core::entities::AnswerCut,
) -> smallebot_protocol::api::AnswerCut {
    use smallebot_core::entities::AnswerCut as Cut;
    use smallebot_protocol::api::AnswerCut as W;
    match cut {
        Cut::OutputLimit => W::OutputLimit,
        Cut::ContextFull => W::ContextFull,
        _ => W::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let sent = event(Event::new(
            conversation,
            Some(turn),
            7,
            EventKind::TaskListChanged { plan: list },
        ))
        .map(|e| serde_json::to_value(e).ok());
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
        assert_eq!(sent, Some(Some(expected)));
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
                    status: ToolCallStatus::Interrupted,
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
            let sent = event(Event::new(id, None, 1, kind.clone()))
                .and_then(|e| serde_json::to_value(e).ok());
            expected["conversation_id"] = id.to_string().into();
            expected["seq"] = 1.into();
            assert_eq!(sent, Some(expected), "{kind:?}");
        }
    }
}
