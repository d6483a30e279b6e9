//! What the printer adds around the answer: the retry line's words, plain answers
//! wrapped on a terminal, tool results printed whole with `/verbose on`.

use super::tests::{printed, retrying, text, tool_started};
use super::*;
use smallebot_core::ids::ConversationId;
use smallebot_protocol::events::ToolCallStatus;

#[test]
fn a_retry_says_a_partial_answer_is_discarded_only_when_text_came() {
    let cases: Vec<(&str, Vec<EventKind>, &str)> = vec![
        (
            "before any text",
            vec![EventKind::TurnStarted, retrying()],
            "[retrying (2/5) in 0.0 s: stream cut]",
        ),
        (
            "after text",
            vec![text("Hi"), retrying()],
            "[retrying (2/5) in 0.0 s: stream cut — the partial answer above is discarded]",
        ),
        (
            "a second retry before new text",
            vec![text("Hi"), retrying(), retrying()],
            "[retrying (2/5) in 0.0 s: stream cut]",
        ),
        (
            "the text of a step before its tools is kept",
            vec![text("Let me look."), tool_started(), retrying()],
            "[retrying (2/5) in 0.0 s: stream cut]",
        ),
    ];
    for (name, events, expected) in cases {
        let shown: Vec<String> = printed(&events, false)
            .lines()
            .filter(|l| l.starts_with("[retrying"))
            .map(str::to_owned)
            .collect();
        assert_eq!(shown.last().map(String::as_str), Some(expected), "{name}");
    }
}

#[test]
fn plain_answers_wrap_only_on_a_terminal() {
    let long = "word ".repeat(30);
    let print = |terminal: bool| {
        let id = ConversationId::new();
        let mut out = Vec::new();
        let mut printer =
            EventPrinter::new(&mut out, false, Style { ansi: false }).wrap_on_terminal(terminal);
        for (seq, kind) in [text(&long), text("end")].into_iter().enumerate() {
            printer
                .print(&Event::new(id, None, seq as u64 + 1, kind))
                .unwrap();
        }
        printer
            .print(&Event::new(
                id,
                None,
                3,
                EventKind::TurnCompleted {
                    text: String::new(),
                    cut: None,
                },
            ))
            .unwrap();
        drop(printer);
        String::from_utf8(out).unwrap()
    };
    // Tests have no terminal: the fallback width of 80 columns.
    let wrapped = print(true);
    assert!(wrapped.lines().all(|l| l.len() <= 80), "{wrapped}");
    assert_eq!(wrapped.lines().count(), 2, "{wrapped}");
    assert!(wrapped.ends_with("word end\n"), "{wrapped:?}");
    assert_eq!(print(false), format!("{long}end\n"));
}

#[test]
fn verbose_prints_a_finished_calls_result_whole_with_its_diff_coloured() {
    let result = "Wrote 2 bytes to 'f' (replaced the previous 2 bytes).\n\n\
                  ```diff\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n```";
    let completed = EventKind::ToolCallCompleted {
        call_id: "c".into(),
        tool_name: "WriteFile".into(),
        status: ToolCallStatus::Ok,
        result: result.into(),
    };
    for verbose in [false, true] {
        let id = ConversationId::new();
        let mut out = Vec::new();
        let mut printer = EventPrinter::new(&mut out, false, Style { ansi: true });
        printer.set_verbose(verbose);
        for (seq, kind) in [tool_started(), completed.clone()].into_iter().enumerate() {
            printer
                .print(&Event::new(id, None, seq as u64 + 1, kind))
                .unwrap();
        }
        drop(printer);
        let shown = String::from_utf8(out).unwrap();
        assert_eq!(shown.contains("\x1b[32m+b\x1b[0m"), verbose, "{shown:?}");
        assert_eq!(shown.contains("\x1b[31m-a\x1b[0m"), verbose, "{shown:?}");
        assert_eq!(
            shown.contains("\x1b[36m@@ -1 +1 @@\x1b[0m"),
            verbose,
            "{shown:?}"
        );
    }
}
