//! `smallebot chat` in a real terminal (tmux): the line editor (editing, history,
//! multi-line input, a large paste as one message), Ctrl+C at the prompt, typed-ahead
//! keys never answering a confirmation, and escape sequences from the model shown
//! rather than obeyed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use std::time::{Duration, Instant};

use smallebot_testkit::{Gate, RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};
use tmux::Tmux;

/// What each turn request's last user message was.
fn sent(model: &TestModel) -> Vec<String> {
    model
        .requests()
        .iter()
        .filter(|r| !r.asks_for_title())
        .filter_map(RecordedRequest::last_user_text)
        .collect()
}

/// Waits until `count` turn requests arrived.
fn wait_for_requests(model: &TestModel, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let got = sent(model);
        if got.len() >= count {
            return got;
        }
        assert!(Instant::now() < deadline, "only {got:?} arrived");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Answers `answer N` to turns and `A title` to titles.
async fn numbered_model() -> TestModel {
    let model = TestModel::start().await.unwrap();
    let count = std::sync::atomic::AtomicUsize::new(0);
    model.respond_with(move |req| {
        if req.asks_for_title() {
            return ScriptedResponse::text("A title");
        }
        let n = count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        ScriptedResponse::text(format!("answer {n}"))
    });
    model
}

fn chat(test: &str, home: &std::path::Path, model: &TestModel) -> Option<Tmux> {
    let url = model.base_url();
    Tmux::start(
        test,
        home,
        &[("OPENAI_BASE_URL", &url), ("SMALLEBOT_MODEL", "scripted")],
        &["chat"],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editing_history_and_multi_line_input_reach_the_model_as_typed() {
    let home = tempfile::tempdir().unwrap();
    let model = numbered_model().await;
    let Some(term) = chat("line editor", home.path(), &model) else {
        return;
    };
    term.wait_for("› ");
    // Arrow keys edit the line instead of sending escape bytes.
    term.type_text("helo");
    term.keys(&["Left"]);
    term.type_text("l");
    term.keys(&["End"]);
    term.type_text(" world");
    term.keys(&["Enter"]);
    term.wait_for("answer 0");
    // Up recalls the last message.
    term.keys(&["Up"]);
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("answer 1");
    // Alt+Enter starts a new line of the same message.
    term.type_text("line one");
    term.keys(&["M-Enter"]);
    term.type_text("line two");
    term.keys(&["Enter"]);
    term.wait_for("answer 2");
    assert_eq!(
        wait_for_requests(&model, 3),
        ["hello world", "hello world", "line one\nline two"]
    );
    let history = std::fs::read_to_string(home.path().join("history.txt")).unwrap();
    assert!(history.contains("hello world"), "{history}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_line_message_typed_while_a_turn_runs_is_sent_as_typed() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    // The first answer waits until the next message was typed: its keys reach the
    // terminal while it is in line mode, which makes Enter a line feed.
    let typed = Gate::new();
    let held = typed.clone();
    let count = std::sync::atomic::AtomicUsize::new(0);
    model.respond_with(move |req| {
        if req.asks_for_title() {
            return ScriptedResponse::text("A title");
        }
        match count.fetch_add(1, std::sync::atomic::Ordering::SeqCst) {
            0 => ScriptedResponse::text("answer 0").hold_until(&held),
            n => ScriptedResponse::text(format!("answer {n}")),
        }
    });
    let Some(term) = chat("typed ahead lines", home.path(), &model) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("first");
    term.keys(&["Enter"]);
    wait_for_requests(&model, 1);
    term.type_text("line one");
    term.keys(&["M-Enter"]);
    term.type_text("line two");
    term.keys(&["Enter"]);
    // tmux has handed the keys to the terminal before the turn may end. (The echo of
    // "line two" shares its line with the turn's status, whose next redraw clears the
    // line: only the first line, ended by the Alt+Enter, stays on the screen.)
    term.wait_for("line one");
    typed.open();
    term.wait_for("answer 1");
    assert_eq!(
        wait_for_requests(&model, 2),
        ["first", "line one\nline two"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paste_of_any_size_is_one_message() {
    let home = tempfile::tempdir().unwrap();
    let model = numbered_model().await;
    let Some(term) = chat("paste", home.path(), &model) else {
        return;
    };
    term.wait_for("› ");
    term.paste("first pasted line\nsecond\nthird");
    term.keys(&["Enter"]);
    term.wait_for("answer 0");
    // The turn is over and the editor reads again: a paste that arrived while the
    // terminal was still in line mode would meet its line-length limit.
    term.wait_for_prompt_after("[context");
    // Far beyond a terminal's 4095-character line limit, on one line.
    let long = "0123456789".repeat(20_000);
    term.paste(&long);
    term.keys(&["Enter"]);
    let got = wait_for_requests(&model, 2);
    assert_eq!(got[0], "first pasted line\nsecond\nthird");
    assert_eq!(got[1].len(), long.len());
    assert_eq!(got[1], long);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_twice_at_the_prompt_exits_at_once() {
    let home = tempfile::tempdir().unwrap();
    let model = numbered_model().await;
    let Some(term) = chat("ctrl-c", home.path(), &model) else {
        return;
    };
    term.wait_for("› ");
    term.keys(&["C-c"]);
    term.wait_for("press Ctrl+C again to exit");
    term.keys(&["C-c"]);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !term.exited() {
        assert!(
            Instant::now() < deadline,
            "still running after the second Ctrl+C:\n{}",
            term.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_typed_before_a_confirmation_never_answer_it() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("terminal.json"),
        r#"{"requireCommandConfirmation": true}"#,
    )
    .unwrap();
    let model = TestModel::start().await.unwrap();
    // The command is asked for only once the keys below were typed.
    let typed = Gate::new();
    let held = typed.clone();
    model.respond_with(move |req| {
        if req.asks_for_title() {
            ScriptedResponse::text("A title")
        } else if req.last_role() == Some("user") {
            ScriptedResponse::tool_calls([ToolCallSpec::new(
                "call_1",
                "ExecuteCommand",
                r#"{"command":"touch made"}"#,
            )])
            .hold_until(&held)
        } else {
            ScriptedResponse::text("finished")
        }
    });
    let Some(term) = chat("typed ahead", home.path(), &model) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("make the file");
    term.keys(&["Enter"]);
    wait_for_requests(&model, 1);
    // Typed while the model is still thinking, before any question.
    term.type_text("y");
    term.keys(&["Enter"]);
    typed.open();
    term.wait_for("$ touch made");
    term.wait_for("Allow? [y/N");
    std::thread::sleep(Duration::from_millis(500));
    let screen = term.screen();
    assert!(
        !screen.contains("→ allowed"),
        "typed-ahead y answered:\n{screen}"
    );
    term.type_text("n");
    term.keys(&["Enter"]);
    term.wait_for("→ denied");
    term.wait_for("finished");
    assert!(!home.path().join("workspace/made").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn escape_sequences_from_the_model_are_shown_not_obeyed() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    model.respond_with(|req| {
        if req.asks_for_title() {
            ScriptedResponse::text("A title")
        } else {
            ScriptedResponse::text("before\x1b[2J\x1b]0;pwned\x07after")
        }
    });
    let Some(term) = chat("escapes", home.path(), &model) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("hi");
    term.keys(&["Enter"]);
    let screen = term.wait_for("before^[[2J^[]0;pwned^Gafter");
    // The screen was not cleared: the banner is still there.
    assert!(screen.contains("SmallEBot — "), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_render_as_markdown_in_a_terminal() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    model.respond_with(|req| {
        if req.asks_for_title() {
            ScriptedResponse::text("A title")
        } else {
            ScriptedResponse::text("# Results\n- **bold** item\n- run `cargo test`\n")
        }
    });
    let Some(term) = chat("markdown", home.path(), &model) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("show me");
    term.keys(&["Enter"]);
    let screen = term.wait_for("• run cargo test");
    assert!(screen.contains("\nResults\n"), "{screen}");
    assert!(screen.contains("• bold item"), "{screen}");
    assert!(!screen.contains("**") && !screen.contains('`'), "{screen}");
}
