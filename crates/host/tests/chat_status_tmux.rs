//! The status line under the stream, in a real terminal (tmux): shown while the model
//! has not answered yet, while a tool runs and while a rate-limited request waits for
//! its retry; gone from the screen and the scrollback afterwards, and never printed by
//! `run` into a pipe.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use std::time::Duration;

use smallebot_testkit::{Gate, ScriptedResponse, TestModel, ToolCallSpec};
use tmux::Tmux;

/// The status line's own words (the event lines printed for good say otherwise).
const TRACES: &[&str] = &[
    "waiting for the model",
    "running ExecuteCommand",
    "s — rate limited",
];

fn assert_no_trace(text: &str) {
    for trace in TRACES {
        assert!(!text.contains(trace), "{trace:?} left behind:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_line_shows_what_the_turn_does_and_leaves_no_trace() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    let answer = Gate::new();
    let held = answer.clone();
    let turns = std::sync::atomic::AtomicUsize::new(0);
    model.respond_with(move |req| {
        if req.asks_for_title() {
            return ScriptedResponse::text("A title");
        }
        match turns.fetch_add(1, std::sync::atomic::Ordering::SeqCst) {
            // The first token is late.
            0 => ScriptedResponse::text("first answer").hold_until(&held),
            1 => ScriptedResponse::tool_calls([ToolCallSpec::new(
                "call_1",
                "ExecuteCommand",
                r#"{"command":"sleep 1.5"}"#,
            )]),
            2 => ScriptedResponse::text("slept well"),
            // Rate limited before any byte, then answered.
            3 => ScriptedResponse::rate_limited(3),
            _ => ScriptedResponse::text("after the wait"),
        }
    });
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
    ];
    let Some(term) = Tmux::start("status line", home.path(), &env, &["chat"]) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("hello");
    term.keys(&["Enter"]);
    term.wait_for("waiting for the model ·");
    answer.open();
    term.wait_for("first answer");
    term.wait_for_prompt_after("first answer");
    assert_no_trace(&term.screen());

    term.type_text("take a nap");
    term.keys(&["Enter"]);
    term.wait_for("running ExecuteCommand $ sleep 1.5 ·");
    term.wait_for("slept well");
    term.wait_for_prompt_after("slept well");
    assert_no_trace(&term.screen());

    term.type_text("once more");
    term.keys(&["Enter"]);
    let screen = term.wait_for("s — rate limited (429)");
    assert!(screen.contains("retrying (2/5) in "), "{screen}");
    term.wait_for("after the wait");
    let screen = term.wait_for_prompt_after("after the wait");
    assert_no_trace(&screen);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_into_a_pipe_prints_no_status_line() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    model.respond_with(|req| {
        if req.asks_for_title() {
            ScriptedResponse::text("A title")
        } else if req.last_role() == Some("user") {
            ScriptedResponse::tool_calls([ToolCallSpec::new(
                "call_1",
                "ExecuteCommand",
                r#"{"command":"sleep 0.5"}"#,
            )])
            .delay_before(Duration::from_millis(500))
        } else {
            ScriptedResponse::text("done").delay_before(Duration::from_millis(500))
        }
    });
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_smallebot"))
        .arg("--home")
        .arg(home.path())
        .args(["run", "nap"])
        .env("OPENAI_BASE_URL", model.base_url())
        .env("SMALLEBOT_MODEL", "scripted")
        .env_remove("SMALLEBOT_HOME")
        .env_remove("NO_COLOR")
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(all.contains("done"), "{all}");
    assert_no_trace(&all);
    assert!(!all.contains('\r') && !all.contains("\x1b[2K"), "{all:?}");
}

/// The context figure of the footer (`[context 2.7k / 128.0k tokens, …]`).
fn context_figure(screen: &str) -> String {
    let at = screen.rfind("[context ").unwrap();
    screen[at..].lines().next().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_context_figure_of_run_in_a_terminal_equals_the_chats() {
    let model = TestModel::start().await.unwrap();
    model.respond_with(|req| {
        if req.asks_for_title() {
            ScriptedResponse::text("A title")
        } else {
            ScriptedResponse::text("hello back").usage(100, 3)
        }
    });
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
    ];
    let run_home = tempfile::tempdir().unwrap();
    let Some(run) = Tmux::start("run figure", run_home.path(), &env, &["run", "hello"]) else {
        return;
    };
    let ran = context_figure(&run.wait_for("tokens"));
    let chat_home = tempfile::tempdir().unwrap();
    let chat = Tmux::start("chat figure", chat_home.path(), &env, &["chat", "--new"]).unwrap();
    chat.wait_for("› ");
    chat.type_text("hello");
    chat.keys(&["Enter"]);
    let chatted = context_figure(&chat.wait_for_prompt_after("[context"));
    assert!(!ran.contains('≤'), "run counted a bound: {ran}");
    assert_eq!(ran, chatted);
}
