//! `smallebot chat` in a real terminal (tmux): answering `r` (always) to a command's
//! question adds a grant that `/permissions` lists; `/permissions revoke ID` takes it
//! back, and `/permissions` then lists none.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use tmux::Tmux;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_adds_a_grant_that_permissions_lists_and_revokes() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("terminal.json"),
        r#"{"requireCommandConfirmation": true}"#,
    )
    .unwrap();
    let model = TestModel::start().await.unwrap();
    model.respond_with(|req| {
        if req.asks_for_title() {
            ScriptedResponse::text("A title")
        } else if req.last_role() == Some("user") {
            ScriptedResponse::tool_calls([ToolCallSpec::new(
                "call_1",
                "ExecuteCommand",
                r#"{"command":"echo granted"}"#,
            )])
        } else {
            ScriptedResponse::text("finished")
        }
    });
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
    ];
    let Some(term) = Tmux::start("permissions", home.path(), &env, &["chat"]) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("say it");
    term.keys(&["Enter"]);
    term.wait_for("Allow? [y/N");
    term.type_text("r");
    term.keys(&["Enter"]);
    term.wait_for("→ allowed (and from now on: a rule for you)");
    term.wait_for_prompt_after("finished");

    term.type_text("/permissions");
    term.keys(&["Enter"]);
    let screen = term.wait_for_prompt_after("ExecuteCommand(echo granted)");
    let row = screen
        .lines()
        .rev()
        .find(|l| l.contains("ExecuteCommand(echo granted)"))
        .unwrap();
    assert!(row.contains("always"), "{screen}");
    let id = row.split_whitespace().next().unwrap().to_owned();
    assert!(id.parse::<i64>().is_ok(), "{screen}");

    term.type_text(&format!("/permissions revoke {id}"));
    term.keys(&["Enter"]);
    term.wait_for_prompt_after(&format!("revoked grant {id}"));
    term.type_text("/permissions");
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("no permission grants");
}
