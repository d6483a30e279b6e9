//! `/rewind` in chat, in a real terminal (tmux): after a turn that wrote a file and
//! removed another, `/rewind` brings both back as they were and says so, the
//! conversation staying as it is; `/rewind undo` puts the turn's files back again; a
//! mistake in the arguments is explained.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};
use tmux::Tmux;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_in_chat_brings_the_files_back_and_can_be_undone() {
    let home = tempfile::tempdir().unwrap();
    let workspace = home.path().join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("keep.txt"), "the person's notes\n").unwrap();
    let model = TestModel::start().await.unwrap();
    model.respond_with(|req| {
        if req.asks_for_title() {
            return ScriptedResponse::text("A title");
        }
        match req
            .messages()
            .iter()
            .filter(|m| m["role"] == "tool")
            .count()
        {
            0 => ScriptedResponse::tool_calls([ToolCallSpec::new(
                "w1",
                "WriteFile",
                r#"{"path":"new.txt","content":"written by the turn\n"}"#,
            )]),
            1 => ScriptedResponse::tool_calls([ToolCallSpec::new(
                "x1",
                "ExecuteCommand",
                r#"{"command":"rm keep.txt"}"#,
            )]),
            _ => ScriptedResponse::text("Wrote new.txt and removed keep.txt."),
        }
    });
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
    ];
    let Some(term) = Tmux::start("chat /rewind", home.path(), &env, &["chat"]) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("tidy up the workspace");
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("Wrote new.txt and removed keep.txt.");
    assert!(workspace.join("new.txt").exists());
    assert!(!workspace.join("keep.txt").exists());

    term.type_text("/rewind both files");
    term.keys(&["Enter"]);
    let screen = term.wait_for_prompt_after("/rewind both files");
    assert!(
        screen.contains("one of files, conversation or both"),
        "{screen}"
    );

    term.type_text("/rewind");
    term.keys(&["Enter"]);
    let screen = term.wait_for("to undo this rewind: /rewind undo");
    assert!(screen.contains("restored  keep.txt"), "{screen}");
    assert!(screen.contains("restored  new.txt"), "{screen}");
    assert_eq!(
        std::fs::read_to_string(workspace.join("keep.txt")).unwrap(),
        "the person's notes\n"
    );
    assert!(!workspace.join("new.txt").exists());
    term.wait_for_prompt_after("to undo this rewind");

    term.type_text("/rewind undo");
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("/rewind undo");
    assert_eq!(
        std::fs::read_to_string(workspace.join("new.txt")).unwrap(),
        "written by the turn\n"
    );
    assert!(!workspace.join("keep.txt").exists());
    // The conversation was left as it was: the turn is still there to answer from.
    term.type_text("/history");
    term.keys(&["Enter"]);
    let screen = term.wait_for_prompt_after("/history");
    assert!(screen.contains("tidy up the workspace"), "{screen}");
}
