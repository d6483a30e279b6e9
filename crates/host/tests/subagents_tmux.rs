//! Sub-agents in a real terminal (tmux): under the `Delegate` calls each sub-agent has
//! one line that changes in place as it works — started, its tool, thinking, done —
//! and stays once in the scrollback when it ended; in chat the status line counts the
//! sub-agents working. `run` and `chat` alike.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod subagents_support;
mod tmux;

use smallebot_testkit::{Gate, ScriptedResponse, TestModel, ToolCallSpec};
use subagents_support::{delegate, home_with_two_agents, of_agent};
use tmux::Tmux;

const LISTER: &str = "lister · list the files";
const READER: &str = "reader · read the notes";

/// How many times `needle` is on the screen and in the scrollback.
fn count(term: &Tmux, needle: &str) -> usize {
    term.screen().matches(needle).count()
}

/// Each step of the sub-agents waits for its gate: the lister's tool call, the
/// lister's answer, the reader's answer.
fn script(model: &TestModel) -> [Gate; 3] {
    let gates = [Gate::new(), Gate::new(), Gate::new()];
    let [tool, listed, read] = gates.clone();
    model.answer_when(
        |r| of_agent(r, "lister"),
        move |r| {
            if r.last_role() == Some("tool") {
                ScriptedResponse::text("lister is done").hold_until(&listed)
            } else {
                ScriptedResponse::tool_calls([ToolCallSpec::new("l1", "ListFiles", "{}")])
                    .hold_until(&tool)
            }
        },
    );
    model.answer_when(
        |r| of_agent(r, "reader"),
        move |_| ScriptedResponse::text("reader is done").hold_until(&read),
    );
    model.respond_with(|r| {
        if r.asks_for_title() {
            ScriptedResponse::text("A title")
        } else if r.last_role() == Some("tool") {
            ScriptedResponse::text("Both helpers are done.")
        } else {
            ScriptedResponse::tool_calls([
                delegate("d1", "lister", "List the workspace.", "list the files"),
                delegate("d2", "reader", "Read notes.txt.", "read the notes"),
            ])
        }
    });
    gates
}

/// Drives the sub-agents through their steps, checking each line changes in place.
fn lines_update_in_place(term: &Tmux, [tool, listed, read]: &[Gate; 3], chat: bool) {
    let screen = term.wait_for(&format!("⋯ {READER} · started · 0 tool calls"));
    assert!(
        screen.contains(&format!("⋯ {LISTER} · started · 0 tool calls")),
        "{screen}"
    );
    if chat {
        term.wait_for("2 sub-agents working");
    }
    tool.open();
    term.wait_for(&format!("⋯ {LISTER} · thinking · 1 tool call"));
    assert_eq!(count(term, LISTER), 1, "{}", term.screen());
    listed.open();
    term.wait_for(&format!("✓ {LISTER} · done · 1 tool call"));
    assert_eq!(count(term, LISTER), 1, "{}", term.screen());
    if chat {
        term.wait_for("1 sub-agent working");
    }
    read.open();
    term.wait_for(&format!("✓ {READER} · done · 0 tool calls"));
    let screen = term.wait_for("Both helpers are done.");
    // Each sub-agent's line once, ended; the parent's answer after them.
    assert_eq!(screen.matches(LISTER).count(), 1, "{screen}");
    assert_eq!(screen.matches(READER).count(), 1, "{screen}");
    assert!(!screen.contains('⋯'), "{screen}");
    assert!(!screen.contains("sub-agents working"), "{screen}");
    let answer = screen.find("Both helpers are done.").unwrap();
    assert!(screen.find(READER).unwrap() < answer, "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_shows_one_line_per_sub_agent_updated_in_place() {
    let home = home_with_two_agents();
    let model = TestModel::start().await.unwrap();
    let gates = script(&model);
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
    ];
    let args = ["run", "Look with two helpers."];
    let Some(term) = Tmux::start("sub-agent lines in run", home.path(), &env, &args) else {
        return;
    };
    lines_update_in_place(&term, &gates, false);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_shows_one_line_per_sub_agent_and_counts_them_on_the_status_line() {
    let home = home_with_two_agents();
    let model = TestModel::start().await.unwrap();
    let gates = script(&model);
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
    ];
    let Some(term) = Tmux::start("sub-agent lines in chat", home.path(), &env, &["chat"]) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("Look with two helpers.");
    term.keys(&["Enter"]);
    lines_update_in_place(&term, &gates, true);
    term.wait_for_prompt_after("Both helpers are done.");
}
