//! Reopening a conversation in a real terminal (tmux): `/resume` and `chat --resume`
//! open a picker of recent conversations, filtered by typing part of a title; the
//! reopened conversation's last turns are shown bounded, a cancelled turn marked.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use smallebot_testkit::{Gate, ScriptedResponse, TestModel};
use tmux::Tmux;

/// Titles from the first message's topic; answers `answer to <message>`; the message
/// `hold` waits for `gate`.
async fn model(gate: &Gate) -> TestModel {
    let model = TestModel::start().await.unwrap();
    let held = gate.clone();
    model.respond_with(move |req| {
        let text = req.last_user_text().unwrap_or_default();
        if req.asks_for_title() {
            let title = if text.contains("walrus") {
                "Walrus facts"
            } else {
                "Penguin plans"
            };
            return ScriptedResponse::text(title);
        }
        if text == "hold" {
            return ScriptedResponse::text("never seen").hold_until(&held);
        }
        ScriptedResponse::text(format!("answer to {text}"))
    });
    model
}

/// A home, the gate of the `hold` message, the model.
async fn setup() -> (tempfile::TempDir, Gate, TestModel) {
    let gate = Gate::new();
    let model = model(&gate).await;
    (tempfile::tempdir().unwrap(), gate, model)
}

/// The environment pointing the chat at the model at `url`.
fn environment(url: &str) -> [(&'static str, &str); 2] {
    [("OPENAI_BASE_URL", url), ("SMALLEBOT_MODEL", "scripted")]
}

fn send(term: &Tmux, text: &str) {
    term.type_text(text);
    term.keys(&["Enter"]);
    term.wait_for_prompt_after(&format!("answer to {text}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_picker_opens_a_conversation_chosen_by_part_of_its_title() {
    let (home, gate, model) = setup().await;
    let url = model.base_url();
    let env = environment(&url);
    let Some(term) = Tmux::start("resume", home.path(), &env, &["chat", "--new"]) else {
        return;
    };
    term.wait_for("› ");
    for i in 1..=5 {
        send(&term, &format!("walrus {i}"));
    }
    // A turn cancelled with Ctrl+C while the model is still silent.
    term.type_text("hold");
    term.keys(&["Enter"]);
    term.wait_for("waiting for the model");
    term.keys(&["C-c"]);
    term.wait_for_prompt_after("(cancelled");
    term.type_text("/new");
    term.keys(&["Enter"]);
    term.wait_for("new conversation: it is saved");
    send(&term, "penguin 1");

    term.type_text("/resume");
    term.keys(&["Enter"]);
    term.wait_for("resume: ▏");
    term.wait_for("Penguin plans");
    term.type_text("walr");
    let picker = term.wait_for("resume: walr▏");
    assert!(picker.contains("6 turns  Walrus facts"), "{picker}");
    term.keys(&["Enter"]);
    let screen = term.wait_for_prompt_after("switched to");
    let shown = &screen[screen.rfind("switched to").unwrap()..];
    assert!(shown.contains("— Walrus facts"), "{shown}");
    assert!(
        shown.contains("… 3 earlier turn(s) — /history shows them"),
        "{shown}"
    );
    assert!(shown.contains("› walrus 4\nanswer to walrus 4"), "{shown}");
    assert!(
        shown.contains("› hold\n(cancelled — partial answer kept)"),
        "{shown}"
    );
    assert!(!shown.contains("walrus 3"), "{shown}");
    // The picker erased itself.
    assert!(!shown.contains("resume: "), "{shown}");
    // The conversation is the open one now.
    send(&term, "walrus 6");
    term.type_text("/history");
    term.keys(&["Enter"]);
    term.wait_for("USER: walrus 1");
    gate.open();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_resume_starts_with_the_picker_and_esc_starts_a_new_conversation() {
    let (home, _gate, model) = setup().await;
    let url = model.base_url();
    let env = environment(&url);
    let Some(first) = Tmux::start("resume first", home.path(), &env, &["chat"]) else {
        return;
    };
    first.wait_for("› ");
    send(&first, "walrus 1");
    drop(first);
    let term = Tmux::start("resume picker", home.path(), &env, &["chat", "--resume"]).unwrap();
    term.wait_for("choose a conversation to resume");
    term.wait_for("1 turn  Walrus facts");
    term.keys(&["Escape"]);
    term.wait_for_prompt_after("new conversation: it is saved");
    let term = Tmux::start("resume again", home.path(), &env, &["chat", "--resume"]).unwrap();
    term.wait_for("1 turn  Walrus facts");
    term.type_text("walrus");
    term.keys(&["Enter"]);
    let screen = term.wait_for_prompt_after("switched to");
    assert!(
        screen.contains("› walrus 1\nanswer to walrus 1"),
        "{screen}"
    );
}
