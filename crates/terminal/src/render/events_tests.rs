use super::*;
use smallebot_core::ids::ConversationId;
use smallebot_protocol::events::ToolCallStatus;

pub(super) fn printed(events: &[EventKind], ansi: bool) -> String {
    let id = ConversationId::new();
    let mut out = Vec::new();
    let mut printer = EventPrinter::new(&mut out, false, Style { ansi });
    for (seq, kind) in events.iter().enumerate() {
        printer
            .print(&Event::new(id, None, seq as u64 + 1, kind.clone()))
            .unwrap();
    }
    drop(printer);
    String::from_utf8(out).unwrap()
}

#[test]
fn a_plan_change_prints_one_progress_line_and_json_keeps_it_whole() {
    let event = Event::new(
        ConversationId::new(),
        None,
        1,
        EventKind::TaskListChanged {
            plan: three_tasks(),
        },
    );
    let mut out = Vec::new();
    EventPrinter::new(&mut out, false, Style { ansi: false })
        .print(&event)
        .unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "  plan: Progress: 1/3 (33.3%)\n"
    );
    let mut out = Vec::new();
    EventPrinter::new(&mut out, true, Style { ansi: false })
        .print(&event)
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
    let tasks = json["plan"]["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 3);
    assert_eq!(tasks[1]["status"], "in_progress");
    assert_eq!(tasks[2]["depends_on"], serde_json::json!(["1", "2"]));
}

/// Task 1 done, 2 in progress, 3 pending after both.
fn three_tasks() -> smallebot_protocol::plan::Plan {
    use smallebot_core::tasks::{Task, TaskList, TaskStatus};
    let mut tasks = vec![Task::new("1", "a", ""), Task::new("2", "b", "")];
    tasks[0].set_status(TaskStatus::Done);
    tasks[1].set_status(TaskStatus::InProgress);
    let mut last = Task::new("3", "c", "");
    last.depends_on = vec!["1".into(), "2".into()];
    tasks.push(last);
    smallebot_application::wire::plan::plan(&TaskList { tasks })
}

#[test]
fn escape_sequences_from_the_model_and_tools_are_printed_as_text() {
    let shown = printed(
        &[
            EventKind::TextDelta {
                text: "clear\x1b[2J".into(),
            },
            EventKind::TextDelta {
                text: "\x1b]0;title\x07 done".into(),
            },
            EventKind::ReasoningDelta {
                text: "think\x1b[31m".into(),
            },
            EventKind::ToolCallCompleted {
                call_id: "c".into(),
                tool_name: "Tool\x1b[H".into(),
                // A failure's first line of result is shown (an ok result is folded).
                status: ToolCallStatus::Error,
                result: "out\x1b[2Jput".into(),
            },
            EventKind::TurnFailed {
                error: "bad\x1b[2J".into(),
            },
        ],
        false,
    );
    assert!(!shown.contains('\x1b'), "{shown:?}");
    assert!(!shown.contains('\x07'), "{shown:?}");
    for visible in [
        "clear^[[2J",
        "^[]0;title^G done",
        "think^[[31m",
        "Tool^[[H",
        "out^[[2Jput",
        "bad^[[2J",
    ] {
        assert!(shown.contains(visible), "{visible} in {shown:?}");
    }
}

#[test]
fn a_tool_call_is_one_line_each_way_with_its_result_folded() {
    let result: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let shown = printed(
        &[
            EventKind::ToolCallStarted {
                call_id: "c".into(),
                tool_name: "ReadFile".into(),
                arguments: r#"{"path":"notes.md"}"#.into(),
            },
            EventKind::ToolCallCompleted {
                call_id: "c".into(),
                tool_name: "ReadFile".into(),
                status: ToolCallStatus::Ok,
                result,
            },
        ],
        false,
    );
    let (started, ended) = shown.split_once('\n').unwrap();
    assert_eq!(started, "⚙ ReadFile notes.md");
    assert!(ended.starts_with("  ✓ ReadFile · ok · "), "{shown}");
    assert!(ended.ends_with("s · /show 1\n"), "{shown}");
    assert!(!shown.contains("line 1"), "{shown}");
}

#[test]
fn failures_get_a_second_line_naming_the_conversation_and_colours_mark_status() {
    let id = ConversationId::new();
    let mut out = Vec::new();
    let mut printer = EventPrinter::new(&mut out, false, Style { ansi: true });
    printer
        .print(&Event::new(
            id,
            None,
            1,
            EventKind::TurnFailed {
                error: "the model failed".into(),
            },
        ))
        .unwrap();
    printer
        .print(&Event::new(
            id,
            None,
            2,
            EventKind::ToolCallCompleted {
                call_id: "c".into(),
                tool_name: "ExecuteCommand".into(),
                status: ToolCallStatus::Error,
                result: "exit 1".into(),
            },
        ))
        .unwrap();
    drop(printer);
    let shown = String::from_utf8(out).unwrap();
    assert!(
        shown.contains("\x1b[31merror: the model failed\x1b[0m"),
        "{shown:?}"
    );
    assert!(
        shown.contains(&format!("error: the turn ended failed (conversation {id})")),
        "{shown:?}"
    );
    assert!(shown.contains("\x1b[31m✗\x1b[0m"), "{shown:?}");
    assert!(shown.contains("\x1b[36mExecuteCommand\x1b[0m"), "{shown:?}");
}

#[test]
fn status_lines_can_go_to_another_writer() {
    #[derive(Clone, Default)]
    struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let status = Shared::default();
    let id = ConversationId::new();
    let mut out = Vec::new();
    let mut printer = EventPrinter::new(&mut out, false, Style { ansi: false })
        .status_to(Box::new(status.clone()), Style { ansi: false });
    let kinds = [
        EventKind::ToolCallStarted {
            call_id: "c".into(),
            tool_name: "GetCurrentTime".into(),
            arguments: "{}".into(),
        },
        EventKind::TextDelta {
            text: "The answer.".into(),
        },
        EventKind::TurnCompleted {
            text: "The answer.".into(),
            cut: Some(smallebot_protocol::history::AnswerCut::OutputLimit),
        },
    ];
    for (seq, kind) in kinds.into_iter().enumerate() {
        printer
            .print(&Event::new(id, None, seq as u64 + 1, kind))
            .unwrap();
    }
    drop(printer);
    assert_eq!(String::from_utf8(out).unwrap(), "The answer.\n");
    let side = String::from_utf8(status.0.lock().unwrap().clone()).unwrap();
    // `run`'s stderr: a cut answer is never silently final.
    assert_eq!(
        side,
        "⚙ GetCurrentTime\n(answer cut at the output limit — ask to continue, or raise \
         maxOutputTokens in models.json)\n"
    );
}

#[test]
fn on_a_terminal_the_answer_is_rendered_as_markdown_as_it_streams() {
    let shown = printed(
        &[
            EventKind::TextDelta {
                text: "# Plan\nuse `cargo".into(),
            },
            EventKind::TextDelta {
                text: " test` **now**".into(),
            },
            EventKind::TurnCompleted {
                text: String::new(),
                cut: None,
            },
        ],
        true,
    );
    assert_eq!(
        shown,
        // The open line shows before it ends, then is redrawn in place once more
        // of it arrived; the heading above it stays.
        "\x1b[1;4;35mPlan\x1b[0m\nuse `cargo\r\x1b[Juse \x1b[33mcargo test\x1b[0m \x1b[1mnow\x1b[0m\n"
    );
    // Without colours (a pipe, NO_COLOR) the Markdown source is printed as it came.
    let plain = printed(
        &[EventKind::TextDelta {
            text: "# Plan\n**now**".into(),
        }],
        false,
    );
    assert_eq!(plain, "# Plan\n**now**");
}

#[test]
fn on_a_writer_of_its_own_a_steps_text_after_tools_starts_a_paragraph() {
    let tool = || EventKind::ToolCallStarted {
        call_id: "c".into(),
        tool_name: "GetCurrentTime".into(),
        arguments: "{}".into(),
    };
    let cases: Vec<(&str, Vec<EventKind>, &str)> = vec![
        (
            "text, tools, text",
            vec![text("Let me check."), tool(), text("It is noon.")],
            "Let me check.\n\nIt is noon.",
        ),
        (
            "a text ending its line",
            vec![text("Let me check.\n"), tool(), text("It is noon.")],
            "Let me check.\n\nIt is noon.",
        ),
        (
            "tools before any text",
            vec![tool(), text("It is noon.")],
            "It is noon.",
        ),
        (
            "several tool calls, one break",
            vec![text("A."), tool(), tool(), text("B."), text(" C.")],
            "A.\n\nB. C.",
        ),
        (
            "a new turn starts without a break",
            vec![text("A."), tool(), EventKind::TurnStarted, text("B.")],
            "A.B.",
        ),
    ];
    for (name, kinds, expected) in cases {
        let id = ConversationId::new();
        let mut out = Vec::new();
        let mut printer = EventPrinter::new(&mut out, false, Style { ansi: false })
            .status_to(Box::new(std::io::sink()), Style { ansi: false });
        for (seq, kind) in kinds.into_iter().enumerate() {
            printer
                .print(&Event::new(id, None, seq as u64 + 1, kind))
                .unwrap();
        }
        drop(printer);
        assert_eq!(String::from_utf8(out).unwrap(), expected, "{name}");
    }
    // One screen (the chat, a terminal): the tool line itself ends the answer's line.
    assert_eq!(
        printed(&[text("A."), tool(), text("B.")], false),
        "A.\n⚙ GetCurrentTime\nB."
    );
}

#[test]
fn on_one_screen_an_open_answer_line_ends_before_a_status_line() {
    let id = ConversationId::new();
    let mut out = Vec::new();
    let mut printer = EventPrinter::new(&mut out, false, Style { ansi: false })
        .status_to(Box::new(std::io::sink()), Style { ansi: false })
        .on_one_screen(true);
    let kinds = [
        EventKind::TextDelta {
            text: "Let me check.".into(),
        },
        EventKind::ToolCallStarted {
            call_id: "c".into(),
            tool_name: "GetCurrentTime".into(),
            arguments: "{}".into(),
        },
    ];
    for (seq, kind) in kinds.into_iter().enumerate() {
        printer
            .print(&Event::new(id, None, seq as u64 + 1, kind))
            .unwrap();
    }
    drop(printer);
    assert_eq!(String::from_utf8(out).unwrap(), "Let me check.\n");
}

/// What a printer holding attempts writes to the answer's writer for `events`.
fn printed_holding(events: &[EventKind]) -> String {
    let id = ConversationId::new();
    let mut out = Vec::new();
    let mut printer = EventPrinter::new(&mut out, false, Style { ansi: false })
        .status_to(Box::new(std::io::sink()), Style { ansi: false })
        .hold_attempts(true);
    for (seq, kind) in events.iter().enumerate() {
        printer
            .print(&Event::new(id, None, seq as u64 + 1, kind.clone()))
            .unwrap();
    }
    drop(printer);
    String::from_utf8(out).unwrap()
}

pub(super) fn text(t: &str) -> EventKind {
    EventKind::TextDelta { text: t.into() }
}

pub(super) fn retrying() -> EventKind {
    EventKind::Retrying {
        attempt: 2,
        max: 5,
        reason: "stream cut".into(),
        delay_ms: 10,
    }
}

pub(super) fn tool_started() -> EventKind {
    EventKind::ToolCallStarted {
        call_id: "c".into(),
        tool_name: "GetCurrentTime".into(),
        arguments: "{}".into(),
    }
}

#[test]
fn held_attempts_print_only_what_finished() {
    let completed = || EventKind::TurnCompleted {
        text: String::new(),
        cut: None,
    };
    let cases: Vec<(&str, Vec<EventKind>, &str)> = vec![
        (
            "a cut attempt is dropped",
            vec![
                text("Hi "),
                text("th"),
                retrying(),
                text("Hi there."),
                completed(),
            ],
            "Hi there.\n",
        ),
        (
            "two cuts",
            vec![
                text("Hi"),
                retrying(),
                text("Hi "),
                retrying(),
                text("Hi!"),
                completed(),
            ],
            "Hi!\n",
        ),
        (
            "a step's text is printed when its tools start",
            vec![
                text("Let me look."),
                tool_started(),
                text("It is noon"),
                retrying(),
                text("It is noon."),
                completed(),
            ],
            "Let me look.\n\nIt is noon.\n",
        ),
        (
            "a cancelled attempt keeps its partial text, as stored",
            vec![
                text("Hi"),
                retrying(),
                text("Hel"),
                EventKind::TurnCancelled,
            ],
            "Hel\n",
        ),
        (
            "a failed turn keeps the last attempt's partial text",
            vec![
                text("Hi"),
                retrying(),
                text("Ho"),
                EventKind::TurnFailed {
                    error: "gone".into(),
                },
            ],
            "Ho\n",
        ),
        ("nothing before the end", vec![text("Hi")], ""),
    ];
    for (name, events, expected) in cases {
        assert_eq!(printed_holding(&events), expected, "{name}");
    }
}

#[test]
fn without_holding_the_text_streams_as_it_comes() {
    assert_eq!(
        printed(&[text("Hi"), retrying()], false).lines().next(),
        Some("Hi")
    );
}
