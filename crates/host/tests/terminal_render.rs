//! Answers rendered in a real terminal (tmux) as they stream: the first words show
//! before the answer ends (in colour and under `NO_COLOR`), numbered and nested lists
//! keep their numbers, tables are aligned, code is highlighted (colours only in colour
//! mode), no word is cut at 40 columns, and a reopened conversation and `run` show
//! answers through the same renderer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use std::time::Duration;

use smallebot_testkit::{Gate, ScriptedResponse, TestModel};
use tmux::Tmux;

const PARAGRAPH: &str = "Wrapping words at a narrow width keeps every word whole: \
    internationalization considerations notwithstanding, extraordinarily long words move down.";

fn rich_answer() -> String {
    format!(
        "Steps to follow:\n\n1. first step\n2. second step\n   1. nested one\n   2. nested two\n\
         3. third step\n\n| Name | Size |\n|------|-----:|\n| alpha | 1 |\n| b | 12345 |\n\n\
         ```rust\nfn main() {{ println!(\"hi\"); }}\n```\n\n{PARAGRAPH}\n"
    )
}

/// A model answering every turn with `answer` (titles with `A title`).
async fn model_answering(
    answer: impl Fn() -> ScriptedResponse + Send + Sync + 'static,
) -> TestModel {
    let model = TestModel::start().await.unwrap();
    model.respond_with(move |req| {
        if req.asks_for_title() {
            ScriptedResponse::text("A title")
        } else {
            answer()
        }
    });
    model
}

fn start(
    test: &str,
    home: &std::path::Path,
    model: &TestModel,
    no_color: bool,
    args: &[&str],
) -> Option<Tmux> {
    let url = model.base_url();
    let mut env = vec![
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
    ];
    if no_color {
        env.push(("NO_COLOR", "1"));
    }
    Tmux::start_sized(test, home, &env, args, (40, 60))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_words_show_while_the_answer_still_streams() {
    for no_color in [false, true] {
        let home = tempfile::tempdir().unwrap();
        let gate = Gate::new();
        let held = gate.clone();
        let model = model_answering(move || {
            ScriptedResponse::text(
                "**Streaming** works: the first words show before the rest of this \
                 paragraph arrives, chunk by chunk. THE END",
            )
            .chunk_size(6)
            .delay_between(Duration::from_millis(100))
            .pause_after_chunks(5, &held)
        })
        .await;
        let Some(term) = start("streaming", home.path(), &model, no_color, &["chat"]) else {
            return;
        };
        term.wait_for("› ");
        term.type_text("go");
        term.keys(&["Enter"]);
        // Mid-way: the stream is held after its first chunks.
        let expected = if no_color {
            "**Streaming** works"
        } else {
            "Streaming works"
        };
        let screen = term.wait_for(expected);
        assert!(!screen.contains("THE END"), "{screen}");
        let coloured = term.rows(true);
        let row = coloured.lines().find(|l| l.contains("Streaming")).unwrap();
        assert_eq!(
            row.contains("\x1b[1m"),
            !no_color,
            "NO_COLOR={no_color}: {row:?}"
        );
        gate.open();
        // Redrawn in place: the paragraph is on the screen once.
        let screen = term.wait_for_prompt_after("THE END");
        assert_eq!(screen.matches("Streaming").count(), 1, "{screen}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_tables_and_code_render_at_forty_columns() {
    for no_color in [false, true] {
        let home = tempfile::tempdir().unwrap();
        let model = model_answering(|| {
            ScriptedResponse::text(rich_answer())
                .chunk_size(7)
                .delay_between(Duration::from_millis(5))
        })
        .await;
        let Some(term) = start("rendering", home.path(), &model, no_color, &["chat"]) else {
            return;
        };
        term.wait_for("› ");
        term.type_text("show me");
        term.keys(&["Enter"]);
        term.wait_for_prompt_after("move down.");
        let rows = term.rows(false);
        let lines: Vec<&str> = rows.lines().map(str::trim_end).collect();
        // Numbered and nested lists keep their numbers.
        for item in [
            "1. first step",
            "2. second step",
            "   1. nested one",
            "   2. nested two",
            "3. third step",
        ] {
            assert!(
                lines.contains(&item),
                "NO_COLOR={no_color}: {item:?} in\n{rows}"
            );
        }
        let code_row = term
            .rows(true)
            .lines()
            .find(|l| l.contains("main"))
            .unwrap_or_default()
            .to_owned();
        if no_color {
            // Plain text: the answer as written, no escapes.
            assert!(lines.contains(&"| alpha | 1 |"), "{rows}");
            assert!(!code_row.contains('\x1b'), "{code_row:?}");
            continue;
        }
        // The table is aligned, the code block labelled and highlighted.
        let table = [
            "Name  │  Size",
            "──────┼──────",
            "alpha │     1",
            "b     │ 12345",
        ];
        let at = lines.iter().position(|l| *l == table[0]).expect(&rows);
        assert_eq!(lines[at..at + 4], table, "{rows}");
        assert!(lines.contains(&"╭─ rust"), "{rows}");
        assert!(code_row.contains("\x1b[38;5;"), "{code_row:?}");
        // No row is wider than the terminal and no word of the paragraph is cut.
        let words: std::collections::HashSet<&str> =
            lines.iter().flat_map(|l| l.split_whitespace()).collect();
        for word in PARAGRAPH.split_whitespace() {
            assert!(words.contains(word), "{word:?} cut in\n{rows}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reopened_conversation_and_run_render_answers_the_same_way() {
    let home = tempfile::tempdir().unwrap();
    let model = model_answering(|| ScriptedResponse::text(rich_answer())).await;
    let Some(term) = start(
        "transcript",
        home.path(),
        &model,
        false,
        &["run", "show me"],
    ) else {
        return;
    };
    let rows = term.wait_for("12345");
    assert!(rows.contains("alpha │     1"), "run: {rows}");
    drop(term);
    // `chat` continues the conversation and shows its last turns rendered.
    let term = start("transcript", home.path(), &model, false, &["chat"]).unwrap();
    let rows = term.wait_for("› ");
    let rows = if rows.contains("12345") {
        rows
    } else {
        term.wait_for("12345")
    };
    assert!(rows.contains("   2. nested two"), "{rows}");
    assert!(rows.contains("alpha │     1"), "{rows}");
    assert!(!rows.contains("| alpha |"), "{rows}");
}
