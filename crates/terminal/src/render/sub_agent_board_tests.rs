use smallebot_application::events::{EventKind, SubAgentOutcome, ToolCallStatus};

use super::{Change, SubAgentBoard};
use crate::render::Style;

const PLAIN: Style = Style { ansi: false };

fn started(call: &str, agent: &str, description: &str) -> EventKind {
    EventKind::SubAgentStarted {
        call_id: call.into(),
        sub_conversation_id: format!("conv-{call}"),
        agent: agent.into(),
        description: description.into(),
        task: "the whole task".into(),
    }
}

fn tool(call: &str, name: &str, status: ToolCallStatus, tool_calls: u32) -> EventKind {
    EventKind::SubAgentToolCall {
        call_id: call.into(),
        sub_conversation_id: format!("conv-{call}"),
        agent: "a".into(),
        tool_name: name.into(),
        status,
        tool_calls,
    }
}

fn finished(call: &str, outcome: SubAgentOutcome, error: Option<&str>, n: u32) -> EventKind {
    EventKind::SubAgentFinished {
        call_id: call.into(),
        sub_conversation_id: format!("conv-{call}"),
        agent: "a".into(),
        outcome,
        error: error.map(str::to_owned),
        tool_calls: n,
    }
}

fn drawn(board: &mut SubAgentBoard, width: usize) -> String {
    let mut out = Vec::new();
    board.draw(&mut out, PLAIN, width).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn each_state_reads_as_one_line() {
    let cases: &[(&[EventKind], &str)] = &[
        (&[], "  ⋯ lister · list files · started · 0 tool calls\n"),
        (
            &[tool("d1", "ListFiles", ToolCallStatus::Running, 1)],
            "  ⋯ lister · list files · running ListFiles · 1 tool call\n",
        ),
        (
            &[
                tool("d1", "ListFiles", ToolCallStatus::Running, 1),
                tool("d1", "ListFiles", ToolCallStatus::Ok, 1),
            ],
            "  ⋯ lister · list files · thinking · 1 tool call\n",
        ),
        (
            &[finished("d1", SubAgentOutcome::Completed, None, 3)],
            "  ✓ lister · list files · done · 3 tool calls\n",
        ),
        (
            &[finished("d1", SubAgentOutcome::Cancelled, None, 0)],
            "  ✗ lister · list files · cancelled · 0 tool calls\n",
        ),
        (
            &[finished(
                "d1",
                SubAgentOutcome::Failed,
                Some("model refused\nsecond line"),
                0,
            )],
            "  ✗ lister · list files · failed: model refused · 0 tool calls\n",
        ),
    ];
    for (events, expected) in cases {
        let mut board = SubAgentBoard::default();
        assert_eq!(
            board.observe(&started("d1", "lister", "list files")),
            Change::Started
        );
        for event in *events {
            board.observe(event);
        }
        assert_eq!(drawn(&mut board, 200), *expected, "{events:?}");
    }
}

#[test]
fn the_block_is_redrawn_in_place_until_every_sub_agent_ended() {
    let mut board = SubAgentBoard::default();
    board.observe(&started("d1", "lister", "list"));
    board.observe(&started("d2", "reader", "read"));
    let first = drawn(&mut board, 200);
    assert!(!first.contains('\x1b'), "nothing to wipe yet: {first:?}");
    assert!(board.is_drawn());
    board.observe(&tool("d2", "ReadFile", ToolCallStatus::Running, 1));
    // Two lines up, cleared to the end of the screen, both drawn again.
    let second = drawn(&mut board, 200);
    assert!(second.starts_with("\x1b[2F\x1b[J  ⋯ lister"), "{second:?}");
    assert!(
        second.ends_with("running ReadFile · 1 tool call\n"),
        "{second:?}"
    );
    board.observe(&finished("d1", SubAgentOutcome::Completed, None, 0));
    assert_eq!(board.running(), 1);
    assert!(drawn(&mut board, 200).starts_with("\x1b[2F\x1b[J"));
    board.observe(&finished("d2", SubAgentOutcome::Completed, None, 1));
    let last = drawn(&mut board, 200);
    assert!(last.contains("✓ reader · read · done"), "{last:?}");
    // Every sub-agent ended: the lines stay in the scrollback, nothing more to redraw.
    assert!(!board.is_drawn());
    assert_eq!(drawn(&mut board, 200), "");
}

#[test]
fn a_line_never_fills_the_row_and_outside_text_commands_nothing() {
    let mut board = SubAgentBoard::default();
    board.observe(&started(
        "d1",
        "evil\x1b[2J",
        "a very long description of the task",
    ));
    let text = drawn(&mut board, 20);
    assert_eq!(text, "  ⋯ evil^[[2J · a v\n");
    assert_eq!(text.trim_end().chars().count(), 19);
}

#[test]
fn events_for_unknown_calls_change_nothing_and_plain_lines_come_at_start_and_end() {
    let mut board = SubAgentBoard::default();
    assert_eq!(
        board.observe(&tool("zz", "ReadFile", ToolCallStatus::Running, 1)),
        Change::None
    );
    assert_eq!(board.observe(&EventKind::TurnStarted), Change::None);
    board.observe(&started("d1", "lister", "list"));
    assert_eq!(
        board.plain_line("d1").as_deref(),
        Some("  ⋯ lister · list · started · 0 tool calls")
    );
    board.observe(&finished("d1", SubAgentOutcome::Completed, None, 2));
    assert_eq!(
        board.plain_line("d1").as_deref(),
        Some("  ✓ lister · list · done · 2 tool calls")
    );
    assert_eq!(board.plain_line("d1"), None, "forgotten once ended");
}
