use std::time::{Duration, Instant};

use smallebot_application::EventKind;
use smallebot_protocol::events::ToolCallStatus;

use super::StatusLine;
use crate::render::Style;

const PLAIN: Style = Style { ansi: false };

fn started(name: &str, arguments: &str) -> EventKind {
    EventKind::ToolCallStarted {
        call_id: "c1".into(),
        tool_name: name.into(),
        arguments: arguments.into(),
    }
}

#[test]
fn the_line_follows_what_the_turn_does() {
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let mut line = StatusLine::new(true, PLAIN, true, t0);
    let mut seen = vec![line.text(at(2_500))];
    let steps: Vec<(EventKind, u64)> = vec![
        (
            started("ExecuteCommand", r#"{"command":"make test"}"#),
            3_000,
        ),
        (
            EventKind::ToolCallCompleted {
                call_id: "c1".into(),
                tool_name: "ExecuteCommand".into(),
                status: ToolCallStatus::Ok,
                result: "ok".into(),
            },
            15_000,
        ),
        (
            EventKind::Retrying {
                attempt: 2,
                max: 4,
                reason: "rate limited (429)".into(),
                delay_ms: 3_000,
            },
            16_000,
        ),
        (EventKind::TextDelta { text: "Hi".into() }, 20_000),
        (started("ReadFile", r#"{"path":"notes.md"}"#), 21_000),
        (
            EventKind::TurnCompleted {
                text: "Hi".into(),
                cut: None,
            },
            22_000,
        ),
    ];
    for (event, ms) in steps {
        line.observe(&event, at(ms));
        seen.push(line.text(at(ms + 1_200)));
    }
    let expected = [
        Some("waiting for the model · 2.5s · Ctrl+C cancels"),
        Some("running ExecuteCommand $ make test · 1.2s · Ctrl+C cancels"),
        Some("waiting for the model · 1.2s · Ctrl+C cancels"),
        Some("retrying (2/4) in 2s — rate limited (429)"),
        None,
        Some("running ReadFile notes.md · 1.2s · Ctrl+C cancels"),
        None,
    ];
    let seen: Vec<Option<&str>> = seen.iter().map(Option::as_deref).collect();
    assert_eq!(seen, expected);
    // After the countdown the retried request is waited for.
    let mut retrying = StatusLine::new(true, PLAIN, true, t0);
    retrying.observe(
        &EventKind::Retrying {
            attempt: 3,
            max: 4,
            reason: "server error 503".into(),
            delay_ms: 1_000,
        },
        t0,
    );
    assert_eq!(
        retrying.text(at(3_000)).as_deref(),
        Some("waiting for the model (attempt 3/4) · 2.0s")
    );
}

#[test]
fn a_compaction_shows_only_while_it_compresses() {
    let t0 = Instant::now();
    let mut line = StatusLine::new(true, PLAIN, false, t0);
    assert!(!line.visible());
    let trigger = smallebot_application::events::CompressionTrigger::Manual;
    line.observe(&EventKind::CompressionStarted { trigger }, t0);
    assert_eq!(
        line.text(t0 + Duration::from_secs(12)).as_deref(),
        Some("compressing the context · 12s")
    );
    line.observe(
        &EventKind::CompressionCompleted {
            trigger,
            ok: true,
            detail: String::new(),
            tokens_before: 10,
            tokens_after: 5,
        },
        t0,
    );
    assert!(!line.visible());
}

#[test]
fn drawn_in_place_cut_to_the_width_and_wiped_without_a_trace() {
    let t0 = Instant::now();
    let mut out = Vec::new();
    let mut line = StatusLine::new(true, PLAIN, true, t0);
    line.draw(&mut out, t0, 20).unwrap();
    line.wipe(&mut out).unwrap();
    let written = String::from_utf8(out).unwrap();
    assert!(!written.contains('\n'), "{written:?}");
    assert_eq!(written, "\r\x1b[2K⠙ waiting for the m\r\x1b[2K");
    // Off a terminal nothing is ever written.
    let mut out = Vec::new();
    let mut off = StatusLine::new(false, PLAIN, true, t0);
    off.draw(&mut out, t0, 80).unwrap();
    off.wipe(&mut out).unwrap();
    assert!(out.is_empty());
}

#[test]
fn while_delegate_runs_the_line_counts_the_sub_agents_working() {
    let t0 = Instant::now();
    let mut line = StatusLine::new(true, PLAIN, true, t0);
    let agent = |call: &str| EventKind::SubAgentStarted {
        call_id: call.into(),
        sub_conversation_id: "s".into(),
        agent: "lister".into(),
        description: "d".into(),
        task: "t".into(),
    };
    let done = |call: &str| EventKind::SubAgentFinished {
        call_id: call.into(),
        sub_conversation_id: "s".into(),
        agent: "lister".into(),
        outcome: smallebot_protocol::events::SubAgentOutcome::Completed,
        error: None,
        tool_calls: 0,
    };
    line.observe(&started("Delegate", "{}"), t0);
    let mut seen = vec![line.text(t0).unwrap()];
    let completed = EventKind::ToolCallCompleted {
        call_id: "d1".into(),
        tool_name: "Delegate".into(),
        status: ToolCallStatus::Ok,
        result: "ok".into(),
    };
    for event in [agent("d1"), agent("d2"), done("d1"), completed, done("d2")] {
        line.observe(&event, t0);
        seen.push(line.text(t0).unwrap());
    }
    assert_eq!(
        seen,
        [
            "running Delegate · 0.0s · Ctrl+C cancels",
            "running Delegate · 1 sub-agent working · 0.0s · Ctrl+C cancels",
            "running Delegate · 2 sub-agents working · 0.0s · Ctrl+C cancels",
            "running Delegate · 1 sub-agent working · 0.0s · Ctrl+C cancels",
            "running Delegate · 1 sub-agent working · 0.0s · Ctrl+C cancels",
            "running Delegate · 0.0s · Ctrl+C cancels",
        ]
    );
}
